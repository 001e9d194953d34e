// The wire types belong to @kubekit/client, which the server and every client share; this module
// keeps the server's imports in one place.
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
} from "@kubekit/client";
