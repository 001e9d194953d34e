export { VERSION } from "./version.js";
export {
  ControlPlaneError,
  isControlPlaneError,
  type ControlPlaneErrorCode,
  type ControlPlaneErrorOptions,
} from "./errors.js";
export type {
  DeleteOptions,
  KubeList,
  KubeObject,
  ListMeta,
  ManagedFieldsEntry,
  ObjectMeta,
  OwnerReference,
  Status,
  StatusCause,
  StatusDetails,
  Table,
  TableColumnDefinition,
  TableRow,
  WatchEvent,
  WatchEventType,
} from "./api/types.js";
export type {
  KeyValue,
  ListOptions,
  ListResult,
  Storage,
  StorageEvent,
  StorageWatch,
  WatchOptions,
} from "./storage/types.js";
export { createMemoryStorage, type MemoryStorageOptions } from "./storage/memory.js";
export { createSqliteStorage, type SqliteStorageOptions } from "./storage/sqlite.js";
export type { SqliteSynchronous } from "./storage/sqlite-schema.js";
export type { CompactionOptions } from "./storage/compactor.js";
export type { JSONSchemaProps } from "./schema/types.js";
export type {
  FieldError,
  PrinterColumn,
  ResourceDefinition,
  ResourceStrategy,
} from "./registry/resource-definition.js";
