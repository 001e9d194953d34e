import { isControlPlaneError } from "../../api/errors/control-plane-error.js";
import { readBody } from "../body.js";
import type { RequestContext } from "../context.js";
import { decodeObject } from "./decode/decode-object.js";
import type { HandlerEnv } from "../handler-env.js";
import type { ResponseFormat } from "./negotiation/negotiation.js";
import type { ResourceRequestInfo } from "../request-info.js";
import { shapeObject, writeEncoded } from "./responsewriters/respond.js";
import type { RequestScope } from "../request-scope.js";
import { parseWriteOptions } from "./options/write-options.js";
import { checkName, defaultTypeMeta, reconcileNamespace, requestOptions } from "./rest.js";

/** PUT of an object, its `status`, or a subresource with its own storage (namespaces' `finalize`): a stale `metadata.resourceVersion` is a 409, an empty one is unconditional. */
export async function handleUpdate(
  ctx: RequestContext,
  info: ResourceRequestInfo,
  scope: RequestScope,
  env: HandlerEnv,
  format: ResponseFormat,
): Promise<void> {
  const options = parseWriteOptions(ctx.query, "UpdateOptions", ctx.req.headers["user-agent"]);
  ctx.dryRun = options.dryRun;
  const definition = scope.definition;
  const body = await readBody(ctx.req, env.maxBodyBytes);
  const object = decodeObject(ctx, body, scope, options.fieldValidation);
  defaultTypeMeta(object, definition);
  reconcileNamespace(object, info, definition);
  checkName(object, info.name);

  const writeOptions = requestOptions(options, info.subresource, ctx.user);
  const createsWhenMissing = !info.subresource && definition.strategy?.allowCreateOnUpdate === true;
  let updated;
  try {
    updated = await scope.store.update(info.namespace, info.name, object, writeOptions);
  } catch (error) {
    if (!createsWhenMissing || !isControlPlaneError(error) || error.code !== "NotFound") throw error;
    // Upstream's AllowCreateOnUpdate: the PUT of a missing object creates it, answered as a create.
    const { resourceVersion: _ignored, ...metadata } = object.metadata ?? {};
    const created = await scope.store.create(info.namespace, { ...object, metadata }, writeOptions);
    writeEncoded(ctx, 201, shapeObject(created, format, scope, "Metadata"), format);
    return;
  }
  writeEncoded(ctx, 200, shapeObject(updated, format, scope, "Metadata"), format);
}
