import { badRequest } from "../api/errors/index.js";

/**
 * The opaque `metadata.continue` of a paged list, shaped like kube-apiserver's
 * (`base64url({"v":"meta.k8s.io/v1","rv":<revision>,"start":<key after the prefix>})`), so a
 * continuation reads the same snapshot and resumes after the last key examined. `rv: -1` marks
 * the "inconsistent" token handed out after the snapshot was compacted: it continues at the
 * latest revision.
 */
export interface ContinueToken {
  /** Revision of the snapshot; -1 means "the latest". */
  revision: number;
  /** The last key examined, relative to the listed prefix. */
  start: string;
}

export function encodeContinueToken(token: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: "meta.k8s.io/v1", rv: token.revision, start: token.start })).toString("base64url");
}

export function decodeContinueToken(value: string): ContinueToken {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, "base64url").toString("utf8"));
  } catch (cause) {
    throw badRequest(`invalid continue token: ${(cause as Error).message}`, { cause });
  }
  const token = parsed as { v?: unknown; rv?: unknown; start?: unknown } | null;
  if (token === null || typeof token !== "object" || token.v !== "meta.k8s.io/v1") {
    throw badRequest("invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
  }
  if (typeof token.rv !== "number" || !Number.isInteger(token.rv) || token.rv === 0 || token.rv < -1) {
    throw badRequest("invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
  }
  if (typeof token.start !== "string" || token.start === "" || token.start.includes("..") || token.start.startsWith("/")) {
    throw badRequest("invalid continue token: continue key is not valid: encoded start key is invalid");
  }
  return { revision: token.rv, start: token.start };
}
