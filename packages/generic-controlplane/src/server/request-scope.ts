import type { KubeObject, ListMeta, Table } from "../api/types.js";
import type { ResourceDefinition } from "../registry/rest/resource-definition.js";
import { toTable, type IncludeObject } from "../registry/table.js";
import type { ResourceStore } from "../registry/types.js";
import type { JSONSchemaProps } from "../schema/types.js";
import type { ServedResource } from "./served-resource.js";

/**
 * Everything the handlers need to serve one resource, worked out once when it is added (upstream's
 * `handlers.RequestScope`): its definition and REST storage, the schema bodies are checked
 * against, the patch types it takes and its table convertor. Protobuf, patching and field
 * validation are the same code for every resource; what differs per resource lives here.
 */
export interface RequestScope {
  readonly definition: ResourceDefinition;
  readonly store: ResourceStore;
  /** Subresources written through their own storage, e.g. `namespaces/finalize` (see ServedResource). */
  readonly subresources: Readonly<Record<string, ResourceStore>>;
  /**
   * The schema `fieldValidation` checks bodies against and unknown fields are pruned by;
   * undefined when the type keeps unknown fields (no schema, or `x-kubernetes-preserve-unknown-fields`).
   */
  readonly fieldSchema: JSONSchemaProps | undefined;
  /** The patch media types the resource accepts, in the order a 415 lists them. */
  readonly patchTypes: readonly string[];
  /** The `meta.k8s.io/v1` Table form of objects (the type's printer columns, or Name and Age). */
  toTable(objects: KubeObject[], options: { listMeta: ListMeta; includeObject: IncludeObject }): Table;
}

export function requestScope(served: ServedResource): RequestScope {
  const { definition, store } = served;
  const schema = definition.schema;
  return {
    definition,
    store,
    subresources: served.subresources ?? {},
    fieldSchema: schema !== undefined && schema["x-kubernetes-preserve-unknown-fields"] !== true ? schema : undefined,
    patchTypes: patchTypes(definition),
    toTable: (objects, options) => toTable(definition, objects, options),
  };
}

/** Strategic merge needs the merge keys a schema names; without one it is a 415, as for custom resources. */
function patchTypes(definition: ResourceDefinition): string[] {
  const types = ["application/json-patch+json", "application/merge-patch+json"];
  if (definition.schema !== undefined && definition.unstructured !== true) types.push("application/strategic-merge-patch+json");
  types.push("application/apply-patch+yaml");
  return types;
}

/** The scope of a subresource written through its own storage: the resource's, with that store. */
export function subresourceScope(scope: RequestScope, store: ResourceStore): RequestScope {
  return { ...scope, store, subresources: {} };
}
