import type { ResourceDefinition } from "../registry/rest/resource-definition.js";
import { DELETE_OPTIONS, PATCH, STATUS, WATCH_EVENT } from "./kind-definitions.js";
import type { GVK, OperationSpec, ParameterSpec, ResponseSpec } from "./model.js";
import { definitionName, groupIdentifier, listKindOf, operationTag, pascal } from "./names.js";
import { DELETE_COLLECTION_LIST_PARAMS, DELETE_PARAMS, LIST_PARAMS, PARAM, PATCH_PARAMS, WRITE_PARAMS } from "./parameters.js";

/** The operations of one resource, one function per verb, named and described as kube-apiserver does. */

const PATCH_TYPES = [
  "application/json-patch+json",
  "application/merge-patch+json",
  "application/strategic-merge-patch+json",
  "application/apply-patch+yaml",
];
const PRODUCES = ["application/json", "application/yaml", "application/vnd.kubernetes.protobuf"];
const WATCH_PRODUCES = [
  "application/json",
  "application/yaml",
  "application/vnd.kubernetes.protobuf",
  "application/json;stream=watch",
  "application/vnd.kubernetes.protobuf;stream=watch",
];
const UNAUTHORIZED: ResponseSpec = { description: "Unauthorized" };

/** What every operation of a resource shares: its names in ids and definitions, and its path parameters. */
export interface ResourceOperations {
  readonly definition: ResourceDefinition;
  readonly gvk: GVK;
  readonly tags: string[];
  /** `CoreV1`, `CoordinationV1`: the group-version in operation ids. */
  readonly gvId: string;
  /** `Namespaced` in the ids of a namespaced resource's operations within a namespace. */
  readonly scoped: string;
  /** Definition names of the kind and its list. */
  readonly itemName: string;
  readonly listName: string;
  /** Path parameters of the collection (the namespace, if namespaced) and of one object (name first). */
  readonly scopeParams: ParameterSpec[];
  readonly namedParams: ParameterSpec[];
}

export function resourceOperations(definition: ResourceDefinition): ResourceOperations {
  const { group, version, kind } = definition;
  const namespaced = definition.scope === "Namespaced";
  const scopeParams = namespaced ? [PARAM.namespace] : [];
  return {
    definition,
    gvk: { group, version, kind },
    tags: [operationTag(group, version)],
    gvId: `${groupIdentifier(group)}${pascal(version)}`,
    scoped: namespaced ? "Namespaced" : "",
    itemName: definitionName(group, version, kind),
    listName: definitionName(group, version, listKindOf(definition)),
    scopeParams,
    namedParams: [PARAM.name(kind), ...scopeParams],
  };
}

function operation(r: ResourceOperations, spec: Omit<OperationSpec, "tags" | "gvk" | "produces"> & { produces?: string[] }): OperationSpec {
  return { produces: PRODUCES, ...spec, tags: r.tags, gvk: r.gvk };
}

function written(r: ResourceOperations): Record<string, ResponseSpec> {
  return { "200": { description: "OK", schema: r.itemName }, "201": { description: "Created", schema: r.itemName }, "401": UNAUTHORIZED };
}

/** GET on the collection; `allNamespaces` for a namespaced resource's cluster-wide list. */
export function listOperation(r: ResourceOperations, allNamespaces = false): OperationSpec {
  const kind = r.definition.kind;
  return operation(r, {
    method: "get",
    action: "list",
    operationId: allNamespaces ? `list${r.gvId}${kind}ForAllNamespaces` : `list${r.gvId}${r.scoped}${kind}`,
    description: `list or watch objects of kind ${kind}`,
    parameters: [...(allNamespaces ? [] : r.scopeParams), PARAM.pretty, ...LIST_PARAMS],
    consumes: [],
    produces: WATCH_PRODUCES,
    responses: { "200": { description: "OK", schema: r.listName }, "401": UNAUTHORIZED },
  });
}

export function createOperation(r: ResourceOperations): OperationSpec {
  const kind = r.definition.kind;
  return operation(r, {
    method: "post",
    action: "post",
    operationId: `create${r.gvId}${r.scoped}${kind}`,
    description: `create a ${kind}`,
    parameters: [...r.scopeParams, PARAM.pretty, PARAM.body(r.itemName), ...WRITE_PARAMS],
    consumes: ["*/*"],
    responses: {
      "200": { description: "OK", schema: r.itemName },
      "201": { description: "Created", schema: r.itemName },
      "202": { description: "Accepted", schema: r.itemName },
      "401": UNAUTHORIZED,
    },
  });
}

export function deleteCollectionOperation(r: ResourceOperations): OperationSpec {
  const kind = r.definition.kind;
  return operation(r, {
    method: "delete",
    action: "deletecollection",
    operationId: `delete${r.gvId}Collection${r.scoped}${kind}`,
    description: `delete collection of ${kind}`,
    parameters: [...r.scopeParams, PARAM.pretty, PARAM.body(DELETE_OPTIONS), ...DELETE_COLLECTION_LIST_PARAMS, ...DELETE_PARAMS],
    consumes: ["*/*"],
    responses: { "200": { description: "OK", schema: STATUS }, "401": UNAUTHORIZED },
  });
}

/** GET on an object, or on its subresource `sub`. */
export function readOperation(r: ResourceOperations, sub?: string): OperationSpec {
  const kind = r.definition.kind;
  return operation(r, {
    method: "get",
    action: "get",
    operationId: `read${r.gvId}${r.scoped}${kind}${sub === undefined ? "" : pascal(sub)}`,
    description: sub === undefined ? `read the specified ${kind}` : `read ${sub} of the specified ${kind}`,
    parameters: [...r.namedParams, PARAM.pretty],
    consumes: [],
    responses: { "200": { description: "OK", schema: r.itemName }, "401": UNAUTHORIZED },
  });
}

/** PUT on an object, or on its subresource `sub`. */
export function replaceOperation(r: ResourceOperations, sub?: string): OperationSpec {
  const kind = r.definition.kind;
  return operation(r, {
    method: "put",
    action: "put",
    operationId: `replace${r.gvId}${r.scoped}${kind}${sub === undefined ? "" : pascal(sub)}`,
    description: sub === undefined ? `replace the specified ${kind}` : `replace ${sub} of the specified ${kind}`,
    parameters: [...r.namedParams, PARAM.pretty, PARAM.body(r.itemName), ...WRITE_PARAMS],
    consumes: ["*/*"],
    responses: written(r),
  });
}

/** PATCH on an object, or on its subresource `sub`, in every patch type. */
export function patchOperation(r: ResourceOperations, sub?: string): OperationSpec {
  const kind = r.definition.kind;
  return operation(r, {
    method: "patch",
    action: "patch",
    operationId: `patch${r.gvId}${r.scoped}${kind}${sub === undefined ? "" : pascal(sub)}`,
    description: sub === undefined ? `partially update the specified ${kind}` : `partially update ${sub} of the specified ${kind}`,
    parameters: [...r.namedParams, PARAM.pretty, PARAM.body(PATCH), ...PATCH_PARAMS],
    consumes: PATCH_TYPES,
    responses: written(r),
  });
}

export function deleteOperation(r: ResourceOperations): OperationSpec {
  const kind = r.definition.kind;
  return operation(r, {
    method: "delete",
    action: "delete",
    operationId: `delete${r.gvId}${r.scoped}${kind}`,
    description: `delete a ${kind}`,
    parameters: [...r.namedParams, PARAM.pretty, PARAM.body(DELETE_OPTIONS), ...DELETE_PARAMS],
    consumes: ["*/*"],
    responses: { "200": { description: "OK", schema: STATUS }, "202": { description: "Accepted", schema: STATUS }, "401": UNAUTHORIZED },
  });
}

/** The deprecated `/watch/` path of the collection; `allNamespaces` for a namespaced resource's cluster-wide one. */
export function watchListOperation(r: ResourceOperations, allNamespaces = false): OperationSpec {
  const kind = r.definition.kind;
  return operation(r, {
    method: "get",
    action: "watchlist",
    operationId: allNamespaces ? `watch${r.gvId}${kind}ListForAllNamespaces` : `watch${r.gvId}${r.scoped}${kind}List`,
    description: `watch individual changes to a list of ${kind}. deprecated: use the 'watch' parameter with a list operation instead.`,
    parameters: [...(allNamespaces ? [] : r.scopeParams), PARAM.pretty, ...LIST_PARAMS],
    consumes: [],
    produces: WATCH_PRODUCES,
    responses: { "200": { description: "OK", schema: WATCH_EVENT }, "401": UNAUTHORIZED },
  });
}

/** The deprecated `/watch/` path of one object. */
export function watchOperation(r: ResourceOperations): OperationSpec {
  const kind = r.definition.kind;
  return operation(r, {
    method: "get",
    action: "watch",
    operationId: `watch${r.gvId}${r.scoped}${kind}`,
    description: `watch changes to an object of kind ${kind}. deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.`,
    parameters: [...r.namedParams, PARAM.pretty, ...LIST_PARAMS],
    consumes: [],
    produces: WATCH_PRODUCES,
    responses: { "200": { description: "OK", schema: WATCH_EVENT }, "401": UNAUTHORIZED },
  });
}
