/** The discovery wire types (meta/v1 and apidiscovery.k8s.io), as JSON. */

export interface GroupVersionForDiscovery {
  groupVersion: string;
  version: string;
}

export interface ServerAddressByClientCIDR {
  clientCIDR: string;
  serverAddress: string;
}

export interface APIVersions {
  kind: "APIVersions";
  versions: string[];
  serverAddressByClientCIDRs: ServerAddressByClientCIDR[];
}

export interface APIGroup {
  kind: "APIGroup";
  apiVersion: "v1";
  name: string;
  versions: GroupVersionForDiscovery[];
  preferredVersion: GroupVersionForDiscovery;
}

export interface APIGroupList {
  kind: "APIGroupList";
  apiVersion: "v1";
  groups: Omit<APIGroup, "kind" | "apiVersion">[];
}

export interface APIResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  group?: string;
  version?: string;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  storageVersionHash?: string;
}

export interface APIResourceList {
  kind: "APIResourceList";
  /** Absent for the core group, as kube-apiserver serves `/api/v1`. */
  apiVersion?: "v1";
  groupVersion: string;
  resources: APIResource[];
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface APISubresourceDiscovery {
  subresource: string;
  responseKind?: GroupVersionKind;
  acceptedTypes?: GroupVersionKind[];
  verbs: string[];
}

export interface APIResourceDiscovery {
  resource: string;
  responseKind: GroupVersionKind;
  scope: "Namespaced" | "Cluster";
  singularResource: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: APISubresourceDiscovery[];
}

export interface APIVersionDiscovery {
  version: string;
  resources: APIResourceDiscovery[];
  freshness: "Current" | "Stale";
}

export interface APIGroupDiscovery {
  metadata: { name?: string; creationTimestamp: null };
  versions: APIVersionDiscovery[];
}

export interface APIGroupDiscoveryList {
  kind: "APIGroupDiscoveryList";
  apiVersion: "apidiscovery.k8s.io/v2" | "apidiscovery.k8s.io/v2beta1";
  metadata: Record<string, never>;
  items: APIGroupDiscovery[];
}
