// The `/client` entry: what a program needs to talk to an API server (a kubeconfig's connection,
// the JSON client, its errors) and nothing of the server or the controllers, so a CLI that only
// calls an API server loads in a fraction of the time the root entry takes.
export { configFromKubeconfig, loadKubeconfig, type ClientConfig } from "./kubeconfig.js";
export type { ExecApiVersion, ExecConfig } from "./exec-credential.js";
export {
  ApiError,
  KubeClient,
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
export { parseGoDuration } from "../api/go-duration.js";
