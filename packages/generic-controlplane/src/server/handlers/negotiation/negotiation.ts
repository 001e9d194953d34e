/**
 * Content negotiation after k8s.io/apiserver's `negotiation` package: which encoding a response
 * gets (Accept) and how a request body is read (Content-Type).
 */

/**
 * What a response is encoded as. Protobuf is chosen only when the client accepts nothing else:
 * clients that list JSON too (kubectl, client-go) get JSON.
 */
export type ResponseFormat =
  | { readonly type: "json" }
  | { readonly type: "protobuf" }
  | { readonly type: "yaml" }
  | { readonly type: "table"; readonly version: "v1" | "v1beta1" }
  | { readonly type: "partial"; readonly version: "v1" | "v1beta1" };

export const JSON_FORMAT: ResponseFormat = { type: "json" };
const YAML_FORMAT: ResponseFormat = { type: "yaml" };
const PROTOBUF_FORMAT: ResponseFormat = { type: "protobuf" };
const TABLE_V1: ResponseFormat = { type: "table", version: "v1" };
const TABLE_V1BETA1: ResponseFormat = { type: "table", version: "v1beta1" };
const PARTIAL_V1: ResponseFormat = { type: "partial", version: "v1" };
const PARTIAL_V1BETA1: ResponseFormat = { type: "partial", version: "v1beta1" };

export interface MediaRange {
  type: string;
  params: Record<string, string>;
  q: number;
}

/** The media types listed in a 406 message, as kube-apiserver words them. */
export const SUPPORTED_RESPONSE_TYPES = "application/json, application/yaml, application/vnd.kubernetes.protobuf";

/** Parses an Accept header into media ranges ordered by preference (q, then position). */
export function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of header.split(",")) {
    const range = parseMediaType(part);
    if (range !== undefined) ranges.push(range);
  }
  // A stable sort keeps the client's order among equal q values.
  return ranges.some((r) => r.q !== 1) ? ranges.sort((a, b) => b.q - a.q) : ranges;
}

export function parseMediaType(text: string): MediaRange | undefined {
  const pieces = text.split(";");
  const type = (pieces[0] ?? "").trim().toLowerCase();
  if (type === "") return undefined;
  const params: Record<string, string> = {};
  let q = 1;
  for (let i = 1; i < pieces.length; i++) {
    const piece = pieces[i] as string;
    const eq = piece.indexOf("=");
    if (eq < 0) continue;
    const key = piece.slice(0, eq).trim().toLowerCase();
    const value = piece
      .slice(eq + 1)
      .trim()
      .replace(/^"|"$/g, "");
    if (key === "q") q = Number(value);
    else params[key] = value;
  }
  return { type, params, q: Number.isFinite(q) ? q : 0 };
}

/**
 * The response format for an object endpoint. `allowTable` is true for reads (get, list, watch):
 * Table and PartialObjectMetadata are transformations kube-apiserver offers only there. Returns
 * undefined when nothing acceptable is listed (406).
 */
export function negotiateObjectFormat(accept: string | undefined, allowTable: boolean): ResponseFormat | undefined {
  if (accept === undefined || accept === "" || accept === "application/json" || accept === "*/*" || accept === "application/json, */*") {
    return JSON_FORMAT;
  }
  let protobuf = false;
  for (const range of parseAccept(accept)) {
    if (range.q <= 0) continue;
    const as = range.params["as"];
    if (as !== undefined) {
      if (!allowTable || range.params["g"] !== "meta.k8s.io" || (range.type !== "application/json" && range.type !== "application/yaml"))
        continue;
      const v = range.params["v"];
      if (as === "Table") {
        if (v === "v1") return TABLE_V1;
        if (v === "v1beta1") return TABLE_V1BETA1;
      } else if (as === "PartialObjectMetadata" || as === "PartialObjectMetadataList") {
        if (v === "v1") return PARTIAL_V1;
        if (v === "v1beta1") return PARTIAL_V1BETA1;
      }
      continue;
    }
    switch (range.type) {
      case "application/json":
      case "*/*":
      case "application/*":
        return JSON_FORMAT;
      case "application/yaml":
        return YAML_FORMAT;
      case "application/vnd.kubernetes.protobuf":
        protobuf = true;
        continue;
      default:
        continue;
    }
  }
  return protobuf ? PROTOBUF_FORMAT : undefined;
}

/** Whether a non-resource endpoint (discovery) may answer plain JSON: `as=` transformations (Table) do not apply there. */
export function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined || accept === "") return true;
  for (const range of parseAccept(accept)) {
    if (range.q <= 0 || range.params["as"] !== undefined) continue;
    if (range.type === "application/json" || range.type === "*/*" || range.type === "application/*") return true;
  }
  return false;
}

export type AggregatedDiscoveryVersion = "v2" | "v2beta1";

/** Aggregated discovery is served only when the Accept asks for it (`as=APIGroupDiscoveryList`). */
export function negotiateDiscovery(accept: string | undefined): AggregatedDiscoveryVersion | "legacy" | undefined {
  if (accept === undefined || !accept.includes("APIGroupDiscoveryList")) return acceptsJson(accept) ? "legacy" : undefined;
  for (const range of parseAccept(accept)) {
    if (range.q <= 0) continue;
    if (
      range.params["as"] === "APIGroupDiscoveryList" &&
      range.params["g"] === "apidiscovery.k8s.io" &&
      range.type === "application/json"
    ) {
      const v = range.params["v"];
      if (v === "v2" || v === "v2beta1") return v;
      continue;
    }
    if (range.params["as"] !== undefined) continue;
    if (range.type === "application/json" || range.type === "*/*" || range.type === "application/*") return "legacy";
  }
  return undefined;
}

/** How a request body is encoded, from its Content-Type (absent means JSON, as kubectl 1.20 relies on). */
export type BodyFormat =
  "json" | "yaml" | "protobuf" | "json-patch" | "merge-patch" | "strategic-merge-patch" | "apply-patch" | "unsupported";

export function bodyFormat(contentType: string | undefined): BodyFormat {
  if (contentType === undefined || contentType === "") return "json";
  const semi = contentType.indexOf(";");
  const type = (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  switch (type) {
    case "application/json":
      return "json";
    case "application/yaml":
    case "application/x-yaml":
    case "text/yaml":
      return "yaml";
    case "application/vnd.kubernetes.protobuf":
      return "protobuf";
    case "application/json-patch+json":
      return "json-patch";
    case "application/merge-patch+json":
      return "merge-patch";
    case "application/strategic-merge-patch+json":
      return "strategic-merge-patch";
    case "application/apply-patch+yaml":
      return "apply-patch";
    default:
      return "unsupported";
  }
}
