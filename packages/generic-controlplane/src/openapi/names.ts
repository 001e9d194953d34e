import type { ResourceDefinition } from "../registry/rest/resource-definition.js";

/** Groups whose types live outside k8s.io/api, with the package prefixes upstream publishes. */
const SPECIAL_GROUP_PACKAGES: Record<string, string> = {
  "apiextensions.k8s.io": "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions",
  "apiregistration.k8s.io": "io.k8s.kube-aggregator.pkg.apis.apiregistration",
};

/**
 * The definition name kube-apiserver publishes a kind under: `io.k8s.api.core.v1.ConfigMap`,
 * `io.k8s.api.coordination.v1.Lease`; other groups use the reversed domain, as CRDs do
 * (`widgets.example.com` → `com.example.widgets.v1.Widget`).
 */
export function definitionName(group: string, version: string, kind: string): string {
  if (group === "") return `io.k8s.api.core.${version}.${kind}`;
  const special = SPECIAL_GROUP_PACKAGES[group];
  if (special !== undefined) return `${special}.${version}.${kind}`;
  if (group.endsWith(".k8s.io")) return `io.k8s.api.${group.split(".")[0] ?? group}.${version}.${kind}`;
  return `${group.split(".").reverse().join(".")}.${version}.${kind}`;
}

/** `status` → `Status`: a word as it appears inside an identifier. */
export function pascal(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** `Core`, `Coordination`, `RbacAuthorization`, `WidgetsExampleCom`: the group part of operation ids. */
export function groupIdentifier(group: string): string {
  if (group === "") return "Core";
  const trimmed = group.endsWith(".k8s.io") ? group.slice(0, -".k8s.io".length) : group;
  return trimmed
    .split(/[.-]/)
    .filter((part) => part !== "")
    .map(pascal)
    .join("");
}

/** `core_v1`, `coordination_v1`: the tag upstream groups operations under. */
export function operationTag(group: string, version: string): string {
  const id = groupIdentifier(group);
  return `${id.charAt(0).toLowerCase()}${id.slice(1)}_${version}`;
}

/** `/api/v1` or `/apis/<group>/<version>`. */
export function groupVersionPrefix(group: string, version: string): string {
  return group === "" ? `/api/${version}` : `/apis/${group}/${version}`;
}

/** `api/v1` or `apis/<group>/<version>`: the key of the OpenAPI v3 index. */
export function groupVersionPath(group: string, version: string): string {
  return groupVersionPrefix(group, version).slice(1);
}

export function listKindOf(definition: ResourceDefinition): string {
  return definition.listKind ?? `${definition.kind}List`;
}
