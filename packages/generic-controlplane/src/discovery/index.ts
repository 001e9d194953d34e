export {
  buildAggregatedDiscovery,
  buildAPIGroup,
  buildAPIGroupList,
  buildAPIResourceList,
  buildAPIVersions,
  createDiscoveryDocuments,
  resourceVerbs,
  storageVersionHash,
  subresourcesOf,
  type DiscoveryDocuments,
  type DiscoveryOptions,
  type SubresourceSpec,
} from "./discovery.js";
export { aggregatedDiscoveryContentType, discoveryETag, etagMatches, negotiateDiscovery, type DiscoveryForm } from "./negotiate.js";
export { compareKubeVersions } from "./versions.js";
export type {
  APIGroup,
  APIGroupDiscovery,
  APIGroupDiscoveryList,
  APIGroupList,
  APIResource,
  APIResourceDiscovery,
  APIResourceList,
  APISubresourceDiscovery,
  APIVersionDiscovery,
  APIVersions,
  GroupVersionForDiscovery,
  GroupVersionKind,
} from "./types.js";
