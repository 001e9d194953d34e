import type { RequestContext } from "../context.js";
import type { HandlerEnv } from "../handler-env.js";
import type { ResponseFormat } from "./negotiation/negotiation.js";
import type { ResourceRequestInfo } from "../request-info.js";
import { writeListPages, writeProtobufListPages } from "./responsewriters/list-stream.js";
import { includeObjectOf, listShape, shapeList, shapeObject, writeEncoded } from "./responsewriters/respond.js";
import type { RequestScope } from "../request-scope.js";
import { parseListRequest } from "./options/list-options.js";
import { protobufListParts } from "../../protobuf/codec.js";

export async function handleGet(
  ctx: RequestContext,
  info: ResourceRequestInfo,
  scope: RequestScope,
  env: HandlerEnv,
  format: ResponseFormat,
): Promise<void> {
  const includeObject = includeObjectOf(ctx.query);
  const object = await scope.store.get(info.namespace, info.name);
  writeEncoded(ctx, 200, shapeObject(object, format, scope, includeObject), format);
}

export async function handleList(
  ctx: RequestContext,
  info: ResourceRequestInfo,
  scope: RequestScope,
  env: HandlerEnv,
  format: ResponseFormat,
): Promise<void> {
  const includeObject = includeObjectOf(ctx.query);
  const request = parseListRequest(ctx.query);
  // Every form goes out page by page as storage reads it.
  const pages = await scope.store.listPages?.(info.namespace, request);
  if (pages !== undefined && format.type !== "protobuf") {
    return writeListPages(ctx, pages, listShape(pages, format, scope, includeObject), format.type === "yaml" ? "yaml" : "json");
  }
  const parts = pages === undefined ? undefined : protobufListParts(pages, ctx.protobuf);
  if (pages !== undefined && parts !== undefined) return writeProtobufListPages(ctx, pages, parts);
  const list = await scope.store.list(info.namespace, request);
  writeEncoded(ctx, 200, shapeList(list, format, scope, includeObject), format);
}
