import type { KubeList, KubeObject, ListMeta, Table } from "../../../api/types.js";
import { encodeProtobuf, supportsProtobuf } from "../../../protobuf/codec.js";
import type { IncludeObject } from "../../../registry/table.js";
import type { RequestContext } from "../../context.js";
import type { ResponseFormat } from "../negotiation/negotiation.js";
import { yamlText } from "./yaml-text.js";
import type { RequestScope } from "../../request-scope.js";

/** What shaping a body takes from a resource's request scope. */
type TableConvertor = Pick<RequestScope, "toTable">;
import { badRequest, notAcceptable } from "../../../api/errors/index.js";
import { stringifyExactJson } from "../../../api/exact-json.js";

/** Writes a JSON body with the headers kube-apiserver sends. */
export function writeJson(ctx: RequestContext, code: number, body: unknown, contentType = "application/json"): void {
  // json.Encoder ends every body with a newline; clients that compare bytes expect it.
  const text = stringifyExactJson(body, wantsPretty(ctx) ? 2 : undefined) + "\n";
  const headers: Record<string, string | string[] | number> = {
    "Content-Type": contentType,
    "Cache-Control": "no-cache, private",
    "Content-Length": Buffer.byteLength(text),
  };
  if (ctx.warnings.length > 0) headers["Warning"] = ctx.warnings;
  ctx.res.writeHead(code, headers);
  ctx.res.end(ctx.method === "HEAD" ? undefined : text);
}

/** kube-apiserver indents JSON for `?pretty=true` and for people: curl, wget and browsers. */
export function wantsPretty(ctx: RequestContext): boolean {
  const pretty = ctx.query.get("pretty");
  if (pretty !== null) return pretty === "true" || pretty === "1";
  const agent = ctx.req.headers["user-agent"];
  return agent !== undefined && (agent.startsWith("curl/") || agent.startsWith("Wget/") || agent.startsWith("Mozilla/5.0 ("));
}

function writeYaml(ctx: RequestContext, code: number, body: unknown): void {
  const text = yamlText(body);
  const headers: Record<string, string | string[] | number> = {
    "Content-Type": "application/yaml",
    "Cache-Control": "no-cache, private",
    "Content-Length": Buffer.byteLength(text),
  };
  if (ctx.warnings.length > 0) headers["Warning"] = ctx.warnings;
  ctx.res.writeHead(code, headers);
  ctx.res.end(ctx.method === "HEAD" ? undefined : text);
}

export function writeEncoded(ctx: RequestContext, code: number, body: unknown, format: ResponseFormat): void {
  if (format.type === "yaml") writeYaml(ctx, code, body);
  else if (format.type === "protobuf") writeProtobuf(ctx, code, body as KubeObject);
  else writeJson(ctx, code, body);
}

/** For clients that accept only protobuf; a kind without a protobuf form is a 406, as upstream. */
function writeProtobuf(ctx: RequestContext, code: number, body: KubeObject): void {
  if (!supportsProtobuf(body.apiVersion ?? "", body.kind ?? "", ctx.protobuf))
    throw notAcceptable(["application/json", "application/yaml"]);
  const bytes = encodeProtobuf(body, ctx.protobuf);
  const headers: Record<string, string | string[] | number> = {
    "Content-Type": "application/vnd.kubernetes.protobuf",
    "Cache-Control": "no-cache, private",
    "Content-Length": bytes.byteLength,
  };
  if (ctx.warnings.length > 0) headers["Warning"] = ctx.warnings;
  ctx.res.writeHead(code, headers);
  ctx.res.end(ctx.method === "HEAD" ? undefined : bytes);
}

export function includeObjectOf(query: URLSearchParams): IncludeObject {
  const value = query.get("includeObject");
  if (value === null || value === "" || value === "Metadata") return "Metadata";
  if (value === "None" || value === "Object") return value;
  throw badRequest(`includeObject: Unsupported value: ${JSON.stringify(value)}: supported values: "None", "Metadata", "Object"`);
}

/** The body of a single object in the negotiated form (object, Table, or PartialObjectMetadata). */
export function shapeObject(object: KubeObject, format: ResponseFormat, convertor: TableConvertor, includeObject: IncludeObject): unknown {
  switch (format.type) {
    case "table":
      return tableOf(convertor, [object], { resourceVersion: object.metadata?.resourceVersion ?? "" }, format.version, includeObject);
    case "partial":
      return partialObject(object, format.version);
    default:
      return object;
  }
}

/** The body of a list in the negotiated form. */
export function shapeList(list: KubeList, format: ResponseFormat, convertor: TableConvertor, includeObject: IncludeObject): unknown {
  switch (format.type) {
    case "table":
      return tableOf(convertor, list.items, list.metadata, format.version, includeObject);
    case "partial":
      return {
        kind: "PartialObjectMetadataList",
        apiVersion: `meta.k8s.io/${format.version}`,
        metadata: list.metadata,
        items: list.items.map((item) => partialObject(item, format.version)),
      };
    default:
      return list;
  }
}

/**
 * A list in the negotiated JSON form split for writing it page by page: the body with its element
 * array (`items`, or a Table's `rows`) empty and last, and the elements a page of objects becomes.
 * `{ ...envelope, [field]: elements(items) }` is what `shapeList` builds for the whole list.
 */
export interface ListShape {
  envelope: Record<string, unknown>;
  field: string;
  elements(objects: KubeObject[]): unknown[];
}

export function listShape(
  list: { apiVersion: string; kind: string; metadata: ListMeta },
  format: ResponseFormat,
  convertor: TableConvertor,
  includeObject: IncludeObject,
): ListShape {
  switch (format.type) {
    case "table": {
      const { rows: _rows, ...envelope } = tableOf(convertor, [], list.metadata, format.version, includeObject);
      return {
        envelope: { ...envelope, rows: [] },
        field: "rows",
        elements: (objects) => tableOf(convertor, objects, list.metadata, format.version, includeObject).rows,
      };
    }
    case "partial": {
      const version = format.version;
      return {
        envelope: { kind: "PartialObjectMetadataList", apiVersion: `meta.k8s.io/${version}`, metadata: list.metadata, items: [] },
        field: "items",
        elements: (objects) => objects.map((item) => partialObject(item, version)),
      };
    }
    default:
      return {
        envelope: { apiVersion: list.apiVersion, kind: list.kind, metadata: list.metadata, items: [] },
        field: "items",
        elements: (objects) => objects,
      };
  }
}

function tableOf(
  convertor: TableConvertor,
  objects: KubeObject[],
  listMeta: ListMeta,
  version: "v1" | "v1beta1",
  includeObject: IncludeObject,
): Table {
  const table = convertor.toTable(objects, { listMeta, includeObject });
  if (version === "v1beta1") return { ...table, apiVersion: "meta.k8s.io/v1beta1" };
  return table;
}

export function partialObject(object: KubeObject, version: "v1" | "v1beta1"): KubeObject {
  return { kind: "PartialObjectMetadata", apiVersion: `meta.k8s.io/${version}`, metadata: object.metadata ?? {} };
}
