import type { ResourceDefinition } from "../registry/resource-definition.js";
import type { JSONSchemaProps } from "../schema/types.js";
import { resourceVerbs, subresourcesOf } from "../discovery/discovery.js";
import { META_V1, patchMetaSchemas, schemaRef } from "../patch/meta-schemas.js";
import { withObjectMeta } from "../patch/schema-walk.js";
import { definitionName, groupIdentifier, groupVersionPrefix, listKindOf, operationTag } from "./names.js";

/**
 * A format-neutral description of the REST API of a set of resources: the paths, operations and
 * definitions both OpenAPI renderings (v3 per group-version, v2 whole) are produced from.
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

const q = (name: string, description: string, type: ParameterSpec["type"] = "string"): ParameterSpec => {
  const spec: ParameterSpec = { name, in: "query", description, type };
  if (type === "string") spec.uniqueItems = true;
  return spec;
};

const PARAM = {
  pretty: q("pretty", "If 'true', then the output is pretty printed. Defaults to 'false' unless the user-agent indicates a browser or command-line HTTP tool (curl and wget)."),
  dryRun: q("dryRun", "When present, indicates that modifications should not be persisted. The only valid value is All: all dry run stages are processed."),
  fieldManager: q("fieldManager", "fieldManager is a name associated with the actor or entity that is making these changes. At most 128 printable characters."),
  fieldManagerApply: q(
    "fieldManager",
    "fieldManager is a name associated with the actor or entity that is making these changes. At most 128 printable characters. Required for apply requests (application/apply-patch) and optional for the other patch types.",
  ),
  fieldValidation: q(
    "fieldValidation",
    "fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields. Ignore drops them silently; Warn (the default) drops them and reports each in a Warning header; Strict fails the request with BadRequest.",
  ),
  force: q("force", "Force is going to \"force\" Apply requests: re-acquire conflicting fields owned by other people. Must be unset for non-apply patch requests.", "boolean"),
  allowWatchBookmarks: q("allowWatchBookmarks", "allowWatchBookmarks requests watch events with type BOOKMARK. Servers may ignore it and send bookmarks at their discretion.", "boolean"),
  continue: q("continue", "The continue option should be set when retrieving more results from the server: pass the continue value of the previous list. An expired token answers 410 ResourceExpired."),
  fieldSelector: q("fieldSelector", "A selector to restrict the list of returned objects by their fields. Defaults to everything."),
  labelSelector: q("labelSelector", "A selector to restrict the list of returned objects by their labels. Defaults to everything."),
  limit: q("limit", "limit is a maximum number of responses to return for a list call. If more items exist, the server sets the continue field on the list metadata.", "integer"),
  resourceVersion: q("resourceVersion", "resourceVersion sets a constraint on what resource versions a request may be served from. Defaults to unset."),
  resourceVersionMatch: q("resourceVersionMatch", "resourceVersionMatch determines how resourceVersion is applied to list calls: Exact or NotOlderThan."),
  sendInitialEvents: q(
    "sendInitialEvents",
    "`sendInitialEvents=true` may be set together with `watch=true`: the stream begins with synthetic events for the current state, followed by a BOOKMARK annotated `k8s.io/initial-events-end`.",
    "boolean",
  ),
  timeoutSeconds: q("timeoutSeconds", "Timeout for the list/watch call, regardless of any activity or inactivity.", "integer"),
  watch: q("watch", "Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.", "boolean"),
  gracePeriodSeconds: q("gracePeriodSeconds", "The duration in seconds before the object should be deleted. Zero means delete immediately.", "integer"),
  orphanDependents: q("orphanDependents", "Deprecated: please use the PropagationPolicy. Should the dependent objects be orphaned.", "boolean"),
  propagationPolicy: q("propagationPolicy", "Whether and how garbage collection will be performed: 'Orphan', 'Background' or 'Foreground'."),
  name: (kind: string): ParameterSpec => ({ name: "name", in: "path", description: `name of the ${kind}`, type: "string", required: true, uniqueItems: true }),
  namespace: { name: "namespace", in: "path", description: "object name and auth scope, such as for teams and projects", type: "string", required: true, uniqueItems: true } satisfies ParameterSpec,
  body: (schema: string): ParameterSpec => ({ name: "body", in: "body", description: "", required: true, schema }),
};

const LIST_PARAMS = [
  PARAM.allowWatchBookmarks,
  PARAM.continue,
  PARAM.fieldSelector,
  PARAM.labelSelector,
  PARAM.limit,
  PARAM.resourceVersion,
  PARAM.resourceVersionMatch,
  PARAM.sendInitialEvents,
  PARAM.timeoutSeconds,
  PARAM.watch,
];
const WRITE_PARAMS = [PARAM.dryRun, PARAM.fieldManager, PARAM.fieldValidation];
const DELETE_PARAMS = [PARAM.dryRun, PARAM.gracePeriodSeconds, PARAM.orphanDependents, PARAM.propagationPolicy];

const STATUS = `${META_V1}.Status`;
const WATCH_EVENT = `${META_V1}.WatchEvent`;
const DELETE_OPTIONS = `${META_V1}.DeleteOptions`;
const PATCH = `${META_V1}.Patch`;
const UNAUTHORIZED: ResponseSpec = { description: "Unauthorized" };

function resourceSchema(definition: ResourceDefinition, gvk: GVK): JSONSchemaProps {
  const base: JSONSchemaProps = definition.schema ?? {
    type: "object",
    description: `${definition.kind} objects; this resource publishes no schema.`,
    "x-kubernetes-preserve-unknown-fields": true,
  };
  return { ...withObjectMeta(base), "x-kubernetes-group-version-kind": [gvk] };
}

function listSchema(definition: ResourceDefinition, itemName: string, gvk: GVK): JSONSchemaProps {
  return {
    type: "object",
    description: `${listKindOf(definition)} is a list of ${definition.kind} objects.`,
    required: ["items"],
    properties: {
      apiVersion: patchMetaSchemas[`${META_V1}.Status`]?.properties?.apiVersion ?? { type: "string" },
      items: { type: "array", description: `Items is the list of ${definition.kind} objects.`, items: { $ref: schemaRef(itemName) } },
      kind: patchMetaSchemas[`${META_V1}.Status`]?.properties?.kind ?? { type: "string" },
      metadata: { $ref: schemaRef(`${META_V1}.ListMeta`), description: "Standard list metadata." },
    },
    "x-kubernetes-group-version-kind": [{ ...gvk, kind: listKindOf(definition) }],
  };
}

/** Operations and definitions of one group-version. */
export function groupVersionSpec(definitions: readonly ResourceDefinition[], group: string, version: string): GroupVersionSpec {
  const served = definitions.filter((d) => d.group === group && d.version === version);
  const prefix = groupVersionPrefix(group, version);
  const gvId = `${groupIdentifier(group)}${version.charAt(0).toUpperCase()}${version.slice(1)}`;
  const tags = [operationTag(group, version)];
  const paths: PathSpec[] = [];
  const owned: Record<string, JSONSchemaProps> = {};

  for (const d of served) {
    const gvk: GVK = { group, version, kind: d.kind };
    const itemName = definitionName(group, version, d.kind);
    const listName = definitionName(group, version, listKindOf(d));
    owned[itemName] = resourceSchema(d, gvk);
    owned[listName] = listSchema(d, itemName, gvk);

    const verbs = resourceVerbs(d);
    const namespaced = d.scope === "Namespaced";
    const scoped = namespaced ? "Namespaced" : "";
    const base = namespaced ? `${prefix}/namespaces/{namespace}/${d.plural}` : `${prefix}/${d.plural}`;
    const scope = namespaced ? [PARAM.namespace] : [];
    const named = [PARAM.name(d.kind), ...scope];
    const op = (spec: Omit<OperationSpec, "tags" | "gvk" | "produces"> & { produces?: string[] }): OperationSpec => ({
      produces: PRODUCES,
      ...spec,
      tags,
      gvk,
    });

    const collection: OperationSpec[] = [];
    if (verbs.includes("list")) {
      collection.push(
        op({
          method: "get",
          action: "list",
          operationId: `list${gvId}${scoped}${d.kind}`,
          description: `list or watch objects of kind ${d.kind}`,
          parameters: [...scope, PARAM.pretty, ...LIST_PARAMS],
          consumes: [],
          produces: WATCH_PRODUCES,
          responses: { "200": { description: "OK", schema: listName }, "401": UNAUTHORIZED },
        }),
      );
    }
    if (verbs.includes("create")) {
      collection.push(
        op({
          method: "post",
          action: "post",
          operationId: `create${gvId}${scoped}${d.kind}`,
          description: `create a ${d.kind}`,
          parameters: [...scope, PARAM.pretty, PARAM.body(itemName), ...WRITE_PARAMS],
          consumes: ["*/*"],
          responses: {
            "200": { description: "OK", schema: itemName },
            "201": { description: "Created", schema: itemName },
            "202": { description: "Accepted", schema: itemName },
            "401": UNAUTHORIZED,
          },
        }),
      );
    }
    if (verbs.includes("deletecollection")) {
      collection.push(
        op({
          method: "delete",
          action: "deletecollection",
          operationId: `delete${gvId}Collection${scoped}${d.kind}`,
          description: `delete collection of ${d.kind}`,
          parameters: [...scope, PARAM.pretty, PARAM.body(DELETE_OPTIONS), ...LIST_PARAMS.filter((p) => p.name !== "watch" && p.name !== "allowWatchBookmarks"), ...DELETE_PARAMS],
          consumes: ["*/*"],
          responses: { "200": { description: "OK", schema: STATUS }, "401": UNAUTHORIZED },
        }),
      );
    }
    paths.push({ path: base, operations: collection });

    const item: OperationSpec[] = [
      op({
        method: "get",
        action: "get",
        operationId: `read${gvId}${scoped}${d.kind}`,
        description: `read the specified ${d.kind}`,
        parameters: [...named, PARAM.pretty],
        consumes: [],
        responses: { "200": { description: "OK", schema: itemName }, "401": UNAUTHORIZED },
      }),
      op({
        method: "put",
        action: "put",
        operationId: `replace${gvId}${scoped}${d.kind}`,
        description: `replace the specified ${d.kind}`,
        parameters: [...named, PARAM.pretty, PARAM.body(itemName), ...WRITE_PARAMS],
        consumes: ["*/*"],
        responses: { "200": { description: "OK", schema: itemName }, "201": { description: "Created", schema: itemName }, "401": UNAUTHORIZED },
      }),
      op({
        method: "patch",
        action: "patch",
        operationId: `patch${gvId}${scoped}${d.kind}`,
        description: `partially update the specified ${d.kind}`,
        parameters: [...named, PARAM.pretty, PARAM.body(PATCH), PARAM.dryRun, PARAM.fieldManagerApply, PARAM.fieldValidation, PARAM.force],
        consumes: PATCH_TYPES,
        responses: { "200": { description: "OK", schema: itemName }, "201": { description: "Created", schema: itemName }, "401": UNAUTHORIZED },
      }),
      op({
        method: "delete",
        action: "delete",
        operationId: `delete${gvId}${scoped}${d.kind}`,
        description: `delete a ${d.kind}`,
        parameters: [...named, PARAM.pretty, PARAM.body(DELETE_OPTIONS), ...DELETE_PARAMS],
        consumes: ["*/*"],
        responses: { "200": { description: "OK", schema: STATUS }, "202": { description: "Accepted", schema: STATUS }, "401": UNAUTHORIZED },
      }),
    ];
    paths.push({ path: `${base}/{name}`, operations: item });

    for (const sub of subresourcesOf(d)) {
      const suffix = pascalCase(sub.name);
      const subOps: OperationSpec[] = [];
      if (sub.verbs.includes("get")) {
        subOps.push(
          op({
            method: "get",
            action: "get",
            operationId: `read${gvId}${scoped}${d.kind}${suffix}`,
            description: `read ${sub.name} of the specified ${d.kind}`,
            parameters: [...named, PARAM.pretty],
            consumes: [],
            responses: { "200": { description: "OK", schema: itemName }, "401": UNAUTHORIZED },
          }),
        );
      }
      if (sub.verbs.includes("update")) {
        subOps.push(
          op({
            method: "put",
            action: "put",
            operationId: `replace${gvId}${scoped}${d.kind}${suffix}`,
            description: `replace ${sub.name} of the specified ${d.kind}`,
            parameters: [...named, PARAM.pretty, PARAM.body(itemName), ...WRITE_PARAMS],
            consumes: ["*/*"],
            responses: { "200": { description: "OK", schema: itemName }, "201": { description: "Created", schema: itemName }, "401": UNAUTHORIZED },
          }),
        );
      }
      if (sub.verbs.includes("patch")) {
        subOps.push(
          op({
            method: "patch",
            action: "patch",
            operationId: `patch${gvId}${scoped}${d.kind}${suffix}`,
            description: `partially update ${sub.name} of the specified ${d.kind}`,
            parameters: [...named, PARAM.pretty, PARAM.body(PATCH), PARAM.dryRun, PARAM.fieldManagerApply, PARAM.fieldValidation, PARAM.force],
            consumes: PATCH_TYPES,
            responses: { "200": { description: "OK", schema: itemName }, "201": { description: "Created", schema: itemName }, "401": UNAUTHORIZED },
          }),
        );
      }
      paths.push({ path: `${base}/{name}/${sub.name}`, operations: subOps });
    }

    if (verbs.includes("watch")) {
      const watchBase = namespaced ? `${prefix}/watch/namespaces/{namespace}/${d.plural}` : `${prefix}/watch/${d.plural}`;
      const watchParams = [PARAM.pretty, ...LIST_PARAMS];
      paths.push({
        path: watchBase,
        operations: [
          op({
            method: "get",
            action: "watchlist",
            operationId: `watch${gvId}${scoped}${d.kind}List`,
            description: `watch individual changes to a list of ${d.kind}. deprecated: use the 'watch' parameter with a list operation instead.`,
            parameters: [...scope, ...watchParams],
            consumes: [],
            produces: WATCH_PRODUCES,
            responses: { "200": { description: "OK", schema: WATCH_EVENT }, "401": UNAUTHORIZED },
          }),
        ],
      });
      paths.push({
        path: `${watchBase}/{name}`,
        operations: [
          op({
            method: "get",
            action: "watch",
            operationId: `watch${gvId}${scoped}${d.kind}`,
            description: `watch changes to an object of kind ${d.kind}. deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.`,
            parameters: [...named, ...watchParams],
            consumes: [],
            produces: WATCH_PRODUCES,
            responses: { "200": { description: "OK", schema: WATCH_EVENT }, "401": UNAUTHORIZED },
          }),
        ],
      });
    }

    if (namespaced) {
      if (verbs.includes("list")) {
        paths.push({
          path: `${prefix}/${d.plural}`,
          operations: [
            op({
              method: "get",
              action: "list",
              operationId: `list${gvId}${d.kind}ForAllNamespaces`,
              description: `list or watch objects of kind ${d.kind}`,
              parameters: [PARAM.pretty, ...LIST_PARAMS],
              consumes: [],
              produces: WATCH_PRODUCES,
              responses: { "200": { description: "OK", schema: listName }, "401": UNAUTHORIZED },
            }),
          ],
        });
      }
      if (verbs.includes("watch")) {
        paths.push({
          path: `${prefix}/watch/${d.plural}`,
          operations: [
            op({
              method: "get",
              action: "watchlist",
              operationId: `watch${gvId}${d.kind}ListForAllNamespaces`,
              description: `watch individual changes to a list of ${d.kind}. deprecated: use the 'watch' parameter with a list operation instead.`,
              parameters: [PARAM.pretty, ...LIST_PARAMS],
              consumes: [],
              produces: WATCH_PRODUCES,
              responses: { "200": { description: "OK", schema: WATCH_EVENT }, "401": UNAUTHORIZED },
            }),
          ],
        });
      }
    }
  }
  return { group, version, paths: paths.filter((p) => p.operations.length > 0), definitions: owned };
}

function pascalCase(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
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
