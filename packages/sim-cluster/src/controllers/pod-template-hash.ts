import { jsonEqual, stableStringify, type JsonEqualRules } from "@kubekit/apimachinery";
/** The alphabet of apimachinery's `rand.SafeEncodeString`: no vowels, no look-alikes. */
const SAFE_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789";

/**
 * JSON with object keys sorted, so equal templates give equal text whatever the key order: the
 * controllers' name for apimachinery's `stableStringify`, the text the hash below is taken of.
 */
export { stableStringify as canonicalJson };

/** JSON data as `canonicalJson` writes it: a key holding undefined is absent, key order does not count. */
const SAME_CANONICAL_JSON: JsonEqualRules = { undefinedValue: "omitted", notPlainData: "keys" };

/**
 * Whether `canonicalJson(a) === canonicalJson(b)` for JSON data (objects, arrays, strings, numbers,
 * booleans, null, keys holding undefined), by a walk that stops at the first difference instead of
 * writing both as sorted text: what a comparison run for every pod event can afford.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  return jsonEqual(a, b, SAME_CANONICAL_JSON);
}

function fnv32a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, "utf8")) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/**
 * The `pod-template-hash` of a template, as the deployment controller's ComputeHash shapes it: an
 * FNV-32a hash (with the collision count mixed in), printed in decimal and safe-encoded. Upstream
 * hashes Go's printed form of the template; this hashes its canonical JSON, so the values differ
 * from a real cluster's but have the same form and stability.
 */
export function podTemplateHash(template: unknown, collisionCount = 0): string {
  const text = stableStringify(template) + (collisionCount > 0 ? String(collisionCount) : "");
  return [...String(fnv32a(text))].map((c) => SAFE_ALPHANUMS[c.charCodeAt(0) % SAFE_ALPHANUMS.length]).join("");
}
