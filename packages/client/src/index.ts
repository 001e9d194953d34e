// What a program needs to talk to a Kubernetes API server: a kubeconfig's connection (exec
// credential plugins, client certificates, tokens, proxies), a JSON client with watches, its
// errors, the object types on the wire (meta, core, apps, scheduling, rbac), and Go durations as kubectl reads them.
export { VERSION } from "./version.js";
export { configFromKubeconfig, loadKubeconfig, type ClientConfig } from "./kubeconfig.js";
export { inClusterConfig, isInCluster, SERVICE_ACCOUNT_DIR } from "./in-cluster.js";
export { EXEC_API_VERSIONS, ExecCredentialProvider, type ExecApiVersion, type ExecConfig, type ExecCredential } from "./exec-credential.js";
export {
  ApiError,
  KubeClient,
  type KubeClientOptions,
  ACCEPT_METADATA,
  ACCEPT_METADATA_LIST,
  PATCH_JSON,
  PATCH_MERGE,
  PATCH_STRATEGIC,
  isApiError,
  isConflict,
  isGone,
  isNotFound,
  resourcePath,
  type Query,
  type RequestInit,
  type ResourceRef,
  type WatchHandle,
} from "./client.js";
export type { Transport, TransportRequest, TransportResponse } from "./transport.js";
export { parseGoDuration } from "@kubekit/apimachinery";
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
} from "./types.js";
export type {
  Container,
  ContainerResizePolicy,
  ContainerStatus,
  CoreEvent,
  Node,
  NodeCondition,
  NodeSpec,
  NodeStatus,
  NodeSystemInfo,
  ObjectReference,
  Pod,
  PodCondition,
  PodSpec,
  PodStatus,
  PodTemplateSpec,
  QuantityValue,
  ResourceList,
  ResourceRequirements,
  ServiceAccount,
  Taint,
  Toleration,
} from "./core-types.js";
export type {
  ClusterRole,
  ClusterRoleBinding,
  DaemonSet,
  DaemonSetSpec,
  LabelSelector,
  LabelSelectorRequirement,
  PolicyRule,
  PriorityClass,
  Role,
  RoleBinding,
  RoleRef,
  Subject,
} from "./workload-types.js";
