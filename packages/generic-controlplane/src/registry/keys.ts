import type { ResourceDefinition } from "./rest/resource-definition.js";

/**
 * Storage keys in kube-apiserver's layout: `/registry/<group>/<plural>/[<namespace>/]<name>`,
 * with no group segment for the core group (`/registry/configmaps/default/foo`).
 */
export interface ResourceKeys {
  /** `/registry/configmaps` — every object of the type. */
  readonly root: string;
  /** The directory to list or watch: a namespace's objects, or all of them. */
  prefix(namespace: string | undefined): string;
  /** One object's key. */
  key(namespace: string | undefined, name: string): string;
}

export function resourceKeys(definition: Pick<ResourceDefinition, "group" | "plural" | "scope">, root = "/registry"): ResourceKeys {
  const base = definition.group === "" ? `${root}/${definition.plural}` : `${root}/${definition.group}/${definition.plural}`;
  const namespaced = definition.scope === "Namespaced";
  return {
    root: base,
    prefix: (namespace) => (namespaced && namespace ? `${base}/${namespace}` : base),
    key: (namespace, name) => (namespaced ? `${base}/${namespace ?? ""}/${name}` : `${base}/${name}`),
  };
}
