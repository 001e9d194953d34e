import { cloneJson, isJsonObject, ownValue, setOwn, type JsonObject, type JsonValue } from "./json-value.js";

/**
 * RFC 7386 JSON merge patch (`application/merge-patch+json`), as `jsonpatch.MergePatch` applies it
 * for the API server: objects merge recursively, `null` removes a key, anything else (arrays
 * included) replaces. The inputs are not modified; a key such as `__proto__` is stored as data.
 */
export function applyMergePatch<T = unknown>(document: unknown, patch: unknown): T {
  return merge(cloneJson(document) as JsonValue | undefined, patch as JsonValue) as T;
}

/**
 * Merges into `target`, which the caller owns; patch values are copied before they are stored.
 * Nested objects are merged from a work list, as documents nest 10,000 levels deep.
 */
function merge(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (!isJsonObject(patch)) return cloneJson(patch);
  const root: JsonObject = isJsonObject(target) ? target : {};
  const pending: Array<[JsonObject, JsonObject]> = [[root, patch]];
  while (pending.length > 0) {
    const [result, changes] = pending.pop()!;
    for (const key of Object.keys(changes)) {
      const value = changes[key]!;
      if (value === null) {
        delete result[key];
      } else if (!isJsonObject(value)) {
        setOwn(result, key, cloneJson(value));
      } else {
        const existing = ownValue(result, key);
        const nested: JsonObject = isJsonObject(existing) ? existing : {};
        setOwn(result, key, nested);
        pending.push([nested, value]);
      }
    }
  }
  return root;
}
