import type { ParameterSpec } from "./model.js";

/** The query, path and body parameters operations take, with upstream's descriptions. */

const query = (name: string, description: string, type: ParameterSpec["type"] = "string"): ParameterSpec => {
  const spec: ParameterSpec = { name, in: "query", description, type };
  if (type === "string") spec.uniqueItems = true;
  return spec;
};

export const PARAM = {
  pretty: query(
    "pretty",
    "If 'true', then the output is pretty printed. Defaults to 'false' unless the user-agent indicates a browser or command-line HTTP tool (curl and wget).",
  ),
  dryRun: query(
    "dryRun",
    "When present, indicates that modifications should not be persisted. The only valid value is All: all dry run stages are processed.",
  ),
  fieldManager: query(
    "fieldManager",
    "fieldManager is a name associated with the actor or entity that is making these changes. At most 128 printable characters.",
  ),
  fieldManagerApply: query(
    "fieldManager",
    "fieldManager is a name associated with the actor or entity that is making these changes. At most 128 printable characters. Required for apply requests (application/apply-patch) and optional for the other patch types.",
  ),
  fieldValidation: query(
    "fieldValidation",
    "fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields. Ignore drops them silently; Warn (the default) drops them and reports each in a Warning header; Strict fails the request with BadRequest.",
  ),
  force: query(
    "force",
    'Force is going to "force" Apply requests: re-acquire conflicting fields owned by other people. Must be unset for non-apply patch requests.',
    "boolean",
  ),
  allowWatchBookmarks: query(
    "allowWatchBookmarks",
    "allowWatchBookmarks requests watch events with type BOOKMARK. Servers may ignore it and send bookmarks at their discretion.",
    "boolean",
  ),
  continue: query(
    "continue",
    "The continue option should be set when retrieving more results from the server: pass the continue value of the previous list. An expired token answers 410 ResourceExpired.",
  ),
  fieldSelector: query("fieldSelector", "A selector to restrict the list of returned objects by their fields. Defaults to everything."),
  labelSelector: query("labelSelector", "A selector to restrict the list of returned objects by their labels. Defaults to everything."),
  limit: query(
    "limit",
    "limit is a maximum number of responses to return for a list call. If more items exist, the server sets the continue field on the list metadata.",
    "integer",
  ),
  resourceVersion: query(
    "resourceVersion",
    "resourceVersion sets a constraint on what resource versions a request may be served from. Defaults to unset.",
  ),
  resourceVersionMatch: query(
    "resourceVersionMatch",
    "resourceVersionMatch determines how resourceVersion is applied to list calls: Exact or NotOlderThan.",
  ),
  sendInitialEvents: query(
    "sendInitialEvents",
    "`sendInitialEvents=true` may be set together with `watch=true`: the stream begins with synthetic events for the current state, followed by a BOOKMARK annotated `k8s.io/initial-events-end`.",
    "boolean",
  ),
  timeoutSeconds: query("timeoutSeconds", "Timeout for the list/watch call, regardless of any activity or inactivity.", "integer"),
  watch: query(
    "watch",
    "Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.",
    "boolean",
  ),
  gracePeriodSeconds: query(
    "gracePeriodSeconds",
    "The duration in seconds before the object should be deleted. Zero means delete immediately.",
    "integer",
  ),
  orphanDependents: query(
    "orphanDependents",
    "Deprecated: please use the PropagationPolicy. Should the dependent objects be orphaned.",
    "boolean",
  ),
  propagationPolicy: query(
    "propagationPolicy",
    "Whether and how garbage collection will be performed: 'Orphan', 'Background' or 'Foreground'.",
  ),
  name: (kind: string): ParameterSpec => ({
    name: "name",
    in: "path",
    description: `name of the ${kind}`,
    type: "string",
    required: true,
    uniqueItems: true,
  }),
  namespace: {
    name: "namespace",
    in: "path",
    description: "object name and auth scope, such as for teams and projects",
    type: "string",
    required: true,
    uniqueItems: true,
  } satisfies ParameterSpec,
  body: (schema: string): ParameterSpec => ({ name: "body", in: "body", description: "", required: true, schema }),
};

/** The query of a list or watch. */
export const LIST_PARAMS: readonly ParameterSpec[] = [
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
/** The list query a deletecollection takes: a list's, without the watch parameters. */
export const DELETE_COLLECTION_LIST_PARAMS: readonly ParameterSpec[] = LIST_PARAMS.filter(
  (p) => p.name !== "watch" && p.name !== "allowWatchBookmarks",
);
/** The query of a create or replace. */
export const WRITE_PARAMS: readonly ParameterSpec[] = [PARAM.dryRun, PARAM.fieldManager, PARAM.fieldValidation];
/** The query of a patch: a write's, with apply's field manager and `force`. */
export const PATCH_PARAMS: readonly ParameterSpec[] = [PARAM.dryRun, PARAM.fieldManagerApply, PARAM.fieldValidation, PARAM.force];
/** The query of a delete. */
export const DELETE_PARAMS: readonly ParameterSpec[] = [
  PARAM.dryRun,
  PARAM.gracePeriodSeconds,
  PARAM.orphanDependents,
  PARAM.propagationPolicy,
];
