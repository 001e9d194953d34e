import type { KubeObject } from "@kubekit/generic-controlplane";
import type { ResourceDefinition } from "@kubekit/generic-controlplane/registry";

/**
 * Each definition is written against its own object shape and served through the
 * shape-agnostic `ResourceDefinition`: the registry only hands a definition objects of its own
 * kind, so narrowing the callbacks' parameter type is sound.
 */
export function defineResource<T extends KubeObject>(definition: ResourceDefinition<T>): ResourceDefinition {
  return definition as unknown as ResourceDefinition;
}
