import { badRequest } from "../api/errors/index.js";
import { cloneJson, isJsonObject, ownValue, setOwn, type JsonObject, type JsonValue } from "./json-value.js";

/**
 * RFC 7386 JSON merge patch (`application/merge-patch+json`): objects merge recursively, `null`
 * removes a key, anything else (arrays included) replaces. The inputs are not modified.
 */
export function applyMergePatch<T = unknown>(document: unknown, patch: unknown): T {
  if (patch === undefined) {
    throw badRequest("merge patch body must be a JSON value");
  }
  return merge(cloneJson(document) as JsonValue | undefined, patch as JsonValue) as T;
}

/** Merges into `target`, which the caller owns; patch values are copied before they are stored. */
function merge(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (!isJsonObject(patch)) return cloneJson(patch);
  const result: JsonObject = isJsonObject(target) ? target : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete result[key];
    } else {
      setOwn(result, key, merge(ownValue(result, key), value));
    }
  }
  return result;
}
