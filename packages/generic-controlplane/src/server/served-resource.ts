import type { ResourceDefinition } from "../registry/rest/resource-definition.js";
import type { ResourceStore } from "../registry/types.js";

/** One resource type the server routes to: its definition and its REST storage. */
export interface ServedResource {
  readonly definition: ResourceDefinition;
  readonly store: ResourceStore;
  /**
   * Subresources written through their own storage: PUT only (upstream's `namespaces/finalize`,
   * an Updater), or the verbs the definition's `subresources` lists for it (GET, PUT and PATCH
   * for a `pods/resize`); `status` is served by `store` when the definition has it.
   */
  readonly subresources?: Readonly<Record<string, ResourceStore>>;
}
