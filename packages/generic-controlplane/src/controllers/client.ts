// The client is @kubekit/client; the controllers import it through here.
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
} from "@kubekit/client";
