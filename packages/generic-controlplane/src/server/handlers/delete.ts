import { badRequest, deletedStatus, methodNotAllowed } from "../../api/errors/index.js";
import type { DeleteOptions, StatusCause } from "../../api/types.js";
import { readBody } from "../body.js";
import type { RequestContext } from "../context.js";
import type { HandlerEnv } from "../handler-env.js";
import type { ResponseFormat } from "./negotiation/negotiation.js";
import { parseBool, type ResourceRequestInfo } from "../request-info.js";
import { shapeList, shapeObject, writeEncoded } from "./responsewriters/respond.js";
import type { RequestScope } from "../request-scope.js";
import { optionsInvalid, parseDryRun } from "./options/write-options.js";
import { parseListRequest } from "./options/list-options.js";
import { parseInt64Query } from "./options/query-numbers.js";
import { decodeBody } from "./decode/decode-object.js";
import { META_V1, patchMetaSchemas } from "../../patch/meta-schemas.js";
import { fieldTypeError } from "../../validation/field-types.js";

const POLICIES = new Set(["Orphan", "Background", "Foreground"]);

/** DeleteOptions from the body (JSON or YAML; kubectl sends `{"propagationPolicy":"Background"}`) and the query. */
export async function readDeleteOptions(ctx: RequestContext, env: HandlerEnv): Promise<DeleteOptions> {
  let options: DeleteOptions = {};
  const body = await readBody(ctx.req, env.maxBodyBytes);
  if (body.length > 0) {
    const parsed = decodeBody(body, ctx.req.headers["content-type"], ctx.protobuf).value;
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) options = parsed;
    else if (parsed !== null) throw badRequest("the body of a delete request must be a DeleteOptions object");
    const mistyped = fieldTypeError(options as Record<string, unknown>, patchMetaSchemas[`${META_V1}.DeleteOptions`], {
      kind: "DeleteOptions",
    });
    if (mistyped !== undefined) throw badRequest(mistyped);
  }
  const query = ctx.query;
  const causes: StatusCause[] = [];
  const grace = query.get("gracePeriodSeconds");
  if (grace !== null) options.gracePeriodSeconds = parseInt64Query(grace);
  const policy = query.get("propagationPolicy");
  if (policy !== null && policy !== "") options.propagationPolicy = policy as DeleteOptions["propagationPolicy"] & string;
  const orphan = query.get("orphanDependents");
  if (orphan !== null && orphan !== "") {
    const b = parseBool(orphan);
    if (b !== undefined) options.orphanDependents = b;
  }
  const dryRunValues = query.getAll("dryRun");
  const dryRun =
    dryRunValues.length > 0
      ? parseDryRun(dryRunValues, causes)
      : options.dryRun !== undefined
        ? parseDryRun(options.dryRun, causes)
        : false;
  if (dryRun) options.dryRun = ["All"];
  if (options.propagationPolicy !== undefined && !POLICIES.has(options.propagationPolicy)) {
    causes.push({
      reason: "FieldValueNotSupported",
      field: "propagationPolicy",
      message: `Unsupported value: ${JSON.stringify(options.propagationPolicy)}: supported values: "Foreground", "Background", "Orphan", "nil"`,
    });
  }
  if (options.propagationPolicy !== undefined && options.orphanDependents !== undefined) {
    causes.push({
      reason: "FieldValueInvalid",
      field: "propagationPolicy",
      message: `Invalid value: ${JSON.stringify(options.propagationPolicy)}: orphanDependents and deletionPropagation cannot be both set`,
    });
  }
  if (options.gracePeriodSeconds !== undefined && options.gracePeriodSeconds < 0) {
    causes.push({
      reason: "FieldValueInvalid",
      field: "gracePeriodSeconds",
      message: `Invalid value: ${options.gracePeriodSeconds}: must be greater than or equal to 0`,
    });
  }
  if (causes.length > 0) throw optionsInvalid("DeleteOptions", causes);
  ctx.dryRun = dryRun;
  return options;
}

/**
 * DELETE of one object. An object removed at once answers a `Status{status: Success}` with its
 * name, kind (plural) and uid, like kube-apiserver for built-in types; one kept by finalizers (or a
 * namespace entering `Terminating`), or one whose storage returns deleted objects (namespaces),
 * answers 200 with the object as it now stands.
 */
export async function handleDelete(
  ctx: RequestContext,
  info: ResourceRequestInfo,
  scope: RequestScope,
  env: HandlerEnv,
  format: ResponseFormat,
): Promise<void> {
  const deleteOptions = await readDeleteOptions(ctx, env);
  const definition = scope.definition;
  const result = await scope.store.delete(info.namespace, info.name, deleteOptions, ctx.dryRun ? { dryRun: true } : {});
  if (!result.deleted || result.returnDeletedObject === true) {
    writeEncoded(ctx, 200, shapeObject(result.object, format, scope, "Metadata"), format);
    return;
  }
  const status = deletedStatus({ group: definition.group, resource: definition.plural }, info.name, result.object.metadata?.uid);
  writeEncoded(ctx, 200, status, format);
}

/** DELETE on a collection: removes every object the selectors match and answers the list of them. */
export async function handleDeleteCollection(
  ctx: RequestContext,
  info: ResourceRequestInfo,
  scope: RequestScope,
  env: HandlerEnv,
  format: ResponseFormat,
): Promise<void> {
  const deleteCollection = scope.store.deleteCollection?.bind(scope.store);
  if (deleteCollection === undefined) throw methodNotAllowed(ctx.method, ctx.path);
  const deleteOptions = await readDeleteOptions(ctx, env);
  const request = parseListRequest(ctx.query);
  const list = await deleteCollection(info.namespace, request, deleteOptions, ctx.dryRun ? { dryRun: true } : {});
  writeEncoded(ctx, 200, shapeList(list, format, scope, "Metadata"), format);
}
