import { createHash } from "node:crypto";

export type DiscoveryForm =
  { form: "aggregated"; version: "v2" | "v2beta1"; contentType: string } | { form: "legacy"; contentType: "application/json" };

interface MediaRange {
  type: string;
  params: Record<string, string>;
  q: number;
  order: number;
}

function parseAccept(header: string): MediaRange[] {
  return header
    .split(",")
    .map((part, order) => {
      const [type = "", ...rest] = part.split(";").map((s) => s.trim());
      const params: Record<string, string> = {};
      let q = 1;
      for (const param of rest) {
        const eq = param.indexOf("=");
        if (eq === -1) continue;
        const key = param.slice(0, eq).trim().toLowerCase();
        const value = param
          .slice(eq + 1)
          .trim()
          .replace(/^"(.*)"$/, "$1");
        if (key === "q") q = Number.isNaN(Number(value)) ? 0 : Number(value);
        else params[key] = value;
      }
      return { type: type.toLowerCase(), params, q, order };
    })
    .filter((range) => range.type !== "" && range.q > 0)
    .sort((a, b) => b.q - a.q || a.order - b.order);
}

/** The exact Content-Type aggregated discovery answers with, echoing g, v and as in that order. */
export function aggregatedDiscoveryContentType(version: "v2" | "v2beta1"): string {
  return `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
}

/**
 * Which discovery form an `Accept` header asks for on `/api` and `/apis`: aggregated v2 or v2beta1
 * (client-go lists v2, then v2beta1, then plain JSON) or the legacy APIVersions/APIGroupList.
 * Undefined means nothing acceptable can be produced (406). A missing header means JSON.
 */
export function negotiateDiscovery(acceptHeader: string | undefined): DiscoveryForm | undefined {
  if (acceptHeader === undefined || acceptHeader.trim() === "") return { form: "legacy", contentType: "application/json" };
  for (const range of parseAccept(acceptHeader)) {
    const { type, params } = range;
    if (params.as !== undefined) {
      if (
        type === "application/json" &&
        params.as === "APIGroupDiscoveryList" &&
        params.g === "apidiscovery.k8s.io" &&
        (params.v === "v2" || params.v === "v2beta1")
      ) {
        return { form: "aggregated", version: params.v, contentType: aggregatedDiscoveryContentType(params.v) };
      }
      continue;
    }
    if (type === "application/json" || type === "application/*" || type === "*/*")
      return { form: "legacy", contentType: "application/json" };
  }
  return undefined;
}

/** A strong ETag over a response body, quoted as the header wants it. */
export function discoveryETag(body: string | Uint8Array): string {
  return `"${createHash("sha256").update(body).digest("hex").toUpperCase()}"`;
}

/** Whether an `If-None-Match` header matches `etag` (lists, weak validators and `*` included). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const bare = etag.replace(/^W\//, "");
  return ifNoneMatch.split(",").some((candidate) => {
    const value = candidate.trim();
    return value === "*" || value.replace(/^W\//, "") === bare;
  });
}
