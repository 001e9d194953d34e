import type { ResourceDefinition } from "../registry/rest/resource-definition.js";
import type { JSONSchemaProps } from "../schema/types.js";
import { patchMetaSchemas } from "../patch/meta-schemas.js";
import { DELETE_OPTIONS, kindSchema, listKindSchema, STATUS, WATCH_EVENT } from "./kind-definitions.js";
import { resourceOperations } from "./operations.js";
import { resourcePaths } from "./resource-paths.js";

/**
 * A format-neutral description of the REST API of a set of resources: the paths, operations and
 * definitions both OpenAPI renderings (v3 per group-version, v2 whole) are produced from.
 * Parameters are in parameters.ts, each verb's operation in operations.ts, a resource's paths in
 * resource-paths.ts and its kind and list definitions in kind-definitions.ts.
 */

export interface GVK {
  group: string;
  version: string;
  kind: string;
}

export interface ParameterSpec {
  name: string;
  in: "query" | "path" | "body";
  description: string;
  type?: "string" | "boolean" | "integer";
  required?: boolean;
  uniqueItems?: boolean;
  /** Definition name of a body parameter. */
  schema?: string;
}

export interface ResponseSpec {
  description: string;
  /** Definition name of the response body. */
  schema?: string;
}

export type Action = "get" | "list" | "watch" | "watchlist" | "post" | "put" | "patch" | "delete" | "deletecollection";

export interface OperationSpec {
  method: "get" | "put" | "post" | "delete" | "patch";
  action: Action;
  operationId: string;
  description: string;
  tags: string[];
  parameters: ParameterSpec[];
  /** Request body content types (body parameter present when set). */
  consumes: string[];
  produces: string[];
  responses: Record<string, ResponseSpec>;
  gvk: GVK;
  deprecated?: boolean;
}

export interface PathSpec {
  path: string;
  operations: OperationSpec[];
}

export interface GroupVersionSpec {
  group: string;
  version: string;
  paths: PathSpec[];
  /** Definitions this group-version's resources own (kinds and lists), by name. */
  definitions: Record<string, JSONSchemaProps>;
}

/** Operations and definitions of one group-version: per resource, its kind and list definitions and its paths. */
export function groupVersionSpec(definitions: readonly ResourceDefinition[], group: string, version: string): GroupVersionSpec {
  const paths: PathSpec[] = [];
  const owned: Record<string, JSONSchemaProps> = {};
  for (const definition of definitions.filter((d) => d.group === group && d.version === version)) {
    const r = resourceOperations(definition);
    const item = kindSchema(definition, r.gvk);
    owned[r.itemName] = item;
    Object.assign(owned, publishedComponents(definition, r.itemName, item));
    owned[r.listName] = listKindSchema(definition, r.itemName, r.gvk);
    paths.push(...resourcePaths(r));
  }
  return { group, version, paths: paths.filter((p) => p.operations.length > 0), definitions: owned };
}

/** The components a definition's published schema reaches (its own kind's name excepted). */
function publishedComponents(definition: ResourceDefinition, itemName: string, item: JSONSchemaProps): Record<string, JSONSchemaProps> {
  const components = definition.openapi?.components;
  if (components === undefined) return {};
  const all: Record<string, JSONSchemaProps> = Object.assign(Object.create(null) as Record<string, JSONSchemaProps>, components, {
    [itemName]: item,
  });
  const out: Record<string, JSONSchemaProps> = {};
  for (const name of referencedDefinitions([itemName], all)) {
    const component = name === itemName ? undefined : all[name];
    if (component !== undefined) out[name] = component;
  }
  return out;
}

/** Every served group-version, core first, then groups in first-seen order. */
export function servedGroupVersions(definitions: readonly ResourceDefinition[]): Array<{ group: string; version: string }> {
  const seen = new Map<string, { group: string; version: string }>();
  for (const d of [...definitions].sort((a, b) => Number(a.group !== "") - Number(b.group !== ""))) {
    const key = `${d.group}/${d.version}`;
    if (!seen.has(key)) seen.set(key, { group: d.group, version: d.version });
  }
  return [...seen.values()];
}

/**
 * The meta/v1 definitions as published: the ones naming a kind carry the group-version-kinds
 * they are served as (Status in core v1; DeleteOptions and WatchEvent in every served group-version).
 */
export function metaDefinitions(groupVersions: ReadonlyArray<{ group: string; version: string }>): Record<string, JSONSchemaProps> {
  const out: Record<string, JSONSchemaProps> = { ...patchMetaSchemas };
  const everywhere = (kind: string) => groupVersions.map(({ group, version }) => ({ group, version, kind }));
  const withGvk = (name: string, gvks: GVK[]) => {
    const schema = out[name];
    if (schema !== undefined && gvks.length > 0) out[name] = { ...schema, "x-kubernetes-group-version-kind": gvks };
  };
  withGvk(STATUS, [{ group: "", version: "v1", kind: "Status" }]);
  withGvk(DELETE_OPTIONS, everywhere("DeleteOptions"));
  withGvk(WATCH_EVENT, everywhere("WatchEvent"));
  return out;
}

/** Definition names a schema references, transitively, within `all`. */
export function referencedDefinitions(roots: Iterable<string>, all: Record<string, JSONSchemaProps>): Set<string> {
  const found = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      value.forEach(visit);
    } else if (typeof value === "object" && value !== null) {
      for (const [key, child] of Object.entries(value)) {
        if (key === "$ref" && typeof child === "string") add(child.slice(child.lastIndexOf("/") + 1));
        else visit(child);
      }
    }
  };
  const add = (name: string) => {
    if (found.has(name) || all[name] === undefined) return;
    found.add(name);
    visit(all[name]);
  };
  for (const root of roots) add(root);
  return found;
}
