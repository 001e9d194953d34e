import { verbNotRouted } from "../../api/errors/index.js";
import { readBody } from "../body.js";
import type { RequestContext } from "../context.js";
import { decodeObject } from "../decode-object.js";
import type { HandlerEnv } from "../handler-env.js";
import type { ResponseFormat } from "../negotiation.js";
import type { ResourceRequestInfo } from "../request-info.js";
import { shapeObject, writeEncoded } from "../respond.js";
import type { RequestScope } from "../request-scope.js";
import { parseWriteOptions } from "../write-options.js";
import { defaultTypeMeta, reconcileNamespace } from "./type-meta.js";

export async function handleCreate(ctx: RequestContext, info: ResourceRequestInfo, scope: RequestScope, env: HandlerEnv, format: ResponseFormat): Promise<void> {
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

  const created = await scope.store.create(info.namespace, object, requestOptions(options));
  writeEncoded(ctx, 201, shapeObject(created, format, scope, "Metadata"), format);
}

export function requestOptions(options: { dryRun: boolean; fieldManager: string | undefined }, subresource = ""): import("../../registry/types.js").RequestOptions {
  const out: import("../../registry/types.js").RequestOptions = {};
  if (options.dryRun) out.dryRun = true;
  if (options.fieldManager !== undefined) out.fieldManager = options.fieldManager;
  if (subresource !== "") out.subresource = subresource;
  return out;
}
