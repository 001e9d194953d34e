/**
 * `@kubekit/generic-controlplane/testing`: helpers for consumers' own tests. It imports `vitest`
 * and `fast-check` (optional peer dependencies), so it is meant to be loaded from test files only.
 */
export { runStorageConformance, type StorageFactory } from "../storage/conformance.js";
export { startTestPlane, type TestPlane, type TestResponse } from "../server/test-support.js";
