import { nameMismatch } from "../../api/errors/index.js";
import type { KubeObject } from "../../api/types.js";
import { readBody } from "../body.js";
import type { RequestContext } from "../context.js";
import { decodeObject } from "../decode-object.js";
import type { HandlerEnv } from "../handler-env.js";
import type { ResponseFormat } from "../negotiation.js";
import type { ResourceRequestInfo } from "../request-info.js";
import { shapeObject, writeEncoded } from "../respond.js";
import type { RequestScope } from "../request-scope.js";
import { parseWriteOptions } from "../write-options.js";
import { requestOptions } from "./create.js";
import { defaultTypeMeta, reconcileNamespace } from "./type-meta.js";

/** PUT of an object, its `status`, or a subresource with its own storage (namespaces' `finalize`): a stale `metadata.resourceVersion` is a 409, an empty one is unconditional. */
export async function handleUpdate(ctx: RequestContext, info: ResourceRequestInfo, scope: RequestScope, env: HandlerEnv, format: ResponseFormat): Promise<void> {
  const options = parseWriteOptions(ctx.query, "UpdateOptions", ctx.req.headers["user-agent"]);
  ctx.dryRun = options.dryRun;
  const definition = scope.definition;
  const body = await readBody(ctx.req, env.maxBodyBytes);
  const object = decodeObject(ctx, body, scope, options.fieldValidation);
  defaultTypeMeta(object, definition);
  reconcileNamespace(object, info, definition);
  checkName(object, info.name);

  const updated = await scope.store.update(info.namespace, info.name, object, requestOptions(options, info.subresource));
  writeEncoded(ctx, 200, shapeObject(updated, format, scope, "Metadata"), format);
}

export function checkName(object: KubeObject, name: string): void {
  const metadata = (object.metadata ??= {});
  if (metadata.name === undefined || metadata.name === "") metadata.name = name;
  else if (metadata.name !== name) {
    throw nameMismatch(metadata.name, name);
  }
}
