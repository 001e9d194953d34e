/**
 * `@kubekit/generic-controlplane/storage`: the revisioned key-value contract every object lives in
 * (etcd v3's shape) and the two embedded backends. Backends throw the `ControlPlaneError`s below
 * (the codes the registry and the conformance suite expect); `/testing` has the conformance suite a
 * third-party backend runs.
 */
export type { KeyValue, ListOptions, ListResult, Storage, StorageEvent, StorageWatch, WatchOptions } from "./types.js";
export { createMemoryStorage, type MemoryStorageOptions } from "./memory.js";
export { createSqliteStorage, type SqliteStorageOptions } from "./sqlite.js";
export type { SqliteSynchronous } from "./sqlite-schema.js";
export type { CompactionOptions } from "./compactor.js";
export {
  keyExists,
  keyNotFound,
  revisionConflict,
  storageClosed,
  tooLargeResourceVersion,
  tooOldResourceVersion,
} from "../api/errors/index.js";
