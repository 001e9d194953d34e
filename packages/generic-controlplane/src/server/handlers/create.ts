import { verbNotRouted } from "../../api/errors/index.js";
import { readBody } from "../body.js";
import type { RequestContext } from "../context.js";
import { decodeObject } from "./decode/decode-object.js";
import type { HandlerEnv } from "../handler-env.js";
import type { ResponseFormat } from "./negotiation/negotiation.js";
import type { ResourceRequestInfo } from "../request-info.js";
import { shapeObject, writeEncoded } from "./responsewriters/respond.js";
import type { RequestScope } from "../request-scope.js";
import { parseWriteOptions } from "./options/write-options.js";
import { defaultTypeMeta, reconcileNamespace, requestOptions } from "./rest.js";

export async function handleCreate(
  ctx: RequestContext,
  info: ResourceRequestInfo,
  scope: RequestScope,
  env: HandlerEnv,
  format: ResponseFormat,
): Promise<void> {
  const options = parseWriteOptions(ctx.query, "CreateOptions", ctx.req.headers["user-agent"]);
  ctx.dryRun = options.dryRun;
  const definition = scope.definition;
  if (definition.scope === "Namespaced" && info.namespace === undefined) {
    throw verbNotRouted("POST", { group: definition.group, resource: definition.plural });
  }
  const body = await readBody(ctx.req, env.maxBodyBytes);
  const object = decodeObject(ctx, body, scope, options.fieldValidation);
  defaultTypeMeta(object, definition);
  reconcileNamespace(object, info, definition);

  const created = await scope.store.create(info.namespace, object, requestOptions(options, "", ctx.user));
  writeEncoded(ctx, 201, shapeObject(created, format, scope, "Metadata"), format);
}
