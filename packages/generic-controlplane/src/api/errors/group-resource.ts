/** A resource and its API group, as apimachinery's `schema.GroupResource` (the core group is ""). */
export interface GroupResource {
  group: string;
  resource: string;
}

/** A kind and its API group, as apimachinery's `schema.GroupKind`. */
export interface GroupKind {
  group: string;
  kind: string;
}

/** `leases.coordination.k8s.io`, or `configmaps` in the core group: `GroupResource.String()`. */
export function qualifiedResource({ group, resource }: GroupResource): string {
  return group === "" ? resource : `${resource}.${group}`;
}

/** `Lease.coordination.k8s.io`, or `ConfigMap` in the core group: `GroupKind.String()`. */
export function qualifiedKind({ group, kind }: GroupKind): string {
  return group === "" ? kind : `${kind}.${group}`;
}

/** Whether neither part is set: `GroupResource.Empty()`. */
export function isEmptyGroupResource({ group, resource }: GroupResource): boolean {
  return group === "" && resource === "";
}
