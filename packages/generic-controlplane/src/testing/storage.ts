/**
 * `@kubekit/generic-controlplane/testing/storage`: the suite every `Storage` backend passes, for
 * third-party backends. It registers vitest tests and draws inputs with fast-check (optional peer
 * dependencies), so it is loaded from test files only.
 */
export { runStorageConformance, type StorageFactory } from "../storage/conformance.js";
