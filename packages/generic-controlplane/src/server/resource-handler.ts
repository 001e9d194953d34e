import type { RequestContext } from "./context.js";
import type { HandlerEnv } from "./handler-env.js";
import { handleCreate } from "./handlers/create.js";
import { handleDelete, handleDeleteCollection } from "./handlers/delete.js";
import { handlePatch } from "./handlers/patch.js";
import { handleGet, handleList } from "./handlers/read.js";
import { handleUpdate } from "./handlers/update.js";
import { handleWatch } from "./handlers/watch.js";
import { negotiateObjectFormat } from "./handlers/negotiation/negotiation.js";
import type { ResourceRequestInfo } from "./request-info.js";
import { subresourceScope, type RequestScope } from "./request-scope.js";
import { methodNotAllowed, methodNotSupported, notAcceptable, pathNotFound } from "../api/errors/index.js";

/** Which verbs each subresource serves. */
const STATUS_VERBS = new Set(["get", "update", "patch"]);

/**
 * The verbs a subresource with its own storage serves: those the definition declares for it
 * (upstream's `pods/resize` is a getter, updater and patcher), else PUT only (`namespaces/finalize`).
 */
function ownSubresourceVerbs(definition: RequestScope["definition"], name: string): readonly string[] {
  return definition.subresources?.find((s) => s.name === name)?.verbs ?? ["update"];
}

/** Routes one resource request to its verb handler. */
export async function serveResource(ctx: RequestContext, info: ResourceRequestInfo, scope: RequestScope, env: HandlerEnv): Promise<void> {
  const definition = scope.definition;
  const verb = info.verb;
  if (definition.restVerbs !== undefined && !definition.restVerbs.includes(verb)) throw methodNotAllowed(ctx.method, ctx.path);
  if (info.subresource !== "") {
    const own = Object.hasOwn(scope.subresources, info.subresource) ? scope.subresources[info.subresource] : undefined;
    if (own !== undefined) {
      if (!ownSubresourceVerbs(definition, info.subresource).includes(verb)) throw methodNotAllowed(ctx.method, ctx.path);
      scope = subresourceScope(scope, own);
    } else {
      if (info.subresource !== "status" || !definition.statusSubresource) throw pathNotFound();
      if (!STATUS_VERBS.has(verb)) throw methodNotAllowed(ctx.method, ctx.path);
    }
  }
  if (definition.scope === "Cluster" && info.namespace !== undefined) throw pathNotFound();
  if (info.namespace === undefined && definition.scope === "Namespaced" && verb !== "list" && verb !== "watch" && verb !== "create") {
    throw pathNotFound();
  }
  if ((verb === "update" || verb === "patch") && info.name === "") throw methodNotAllowed(ctx.method, ctx.path);

  const format = negotiateObjectFormat(ctx.req.headers.accept, verb === "get" || verb === "list" || verb === "watch");
  if (format === undefined) throw notAcceptable();
  // Protobuf watch streams need length-delimited framing, which is not produced.
  if (format.type === "protobuf" && verb === "watch") throw notAcceptable();

  switch (verb) {
    case "get":
      return handleGet(ctx, info, scope, env, format);
    case "list":
      return handleList(ctx, info, scope, env, format);
    case "watch":
      return handleWatch(ctx, info, scope, env, format);
    case "create":
      if (info.name !== "") throw methodNotAllowed(ctx.method, ctx.path);
      return handleCreate(ctx, info, scope, env, format);
    case "update":
      return handleUpdate(ctx, info, scope, env, format);
    case "patch":
      return handlePatch(ctx, info, scope, env, format);
    case "delete":
      return handleDelete(ctx, info, scope, env, format);
    case "deletecollection":
      return handleDeleteCollection(ctx, info, scope, env, format);
    default:
      throw methodNotSupported({ group: definition.group, resource: definition.plural }, String(verb));
  }
}
