import { badRequest, patchNotApplicable, requestEntityTooLarge } from "../api/errors/index.js";
import { cloneJson, describeValue, isJsonObject, jsonEqual, ownValue, setOwn, type JsonValue } from "./json-value.js";

/** One RFC 6902 operation as a client sends it. */
export type JsonPatchOperation =
  | { op: "add" | "replace" | "test"; path: string; value: unknown }
  | { op: "remove"; path: string }
  | { op: "move" | "copy"; path: string; from: string };
type Operation = JsonPatchOperation;

const OPS = new Set(["add", "remove", "replace", "move", "copy", "test"]);

/** kube-apiserver's cap on the operations of one JSON patch. */
export const MAX_JSON_PATCH_OPERATIONS = 10_000;

/**
 * RFC 6902 JSON patch (`application/json-patch+json`). Failures read like kube-apiserver's
 * (evanphx/json-patch): a malformed patch is 400 BadRequest, an operation that does not apply
 * (failed `test`, missing path) is 422 Invalid. The input document is never modified.
 */
export function applyJsonPatch<T = unknown>(document: unknown, operations: unknown): T {
  if (!Array.isArray(operations)) {
    throw badRequest("json: cannot unmarshal object into Go value of type jsonpatch.Patch");
  }
  if (operations.length > MAX_JSON_PATCH_OPERATIONS) {
    throw requestEntityTooLarge(`The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${operations.length}`);
  }
  let current: unknown = cloneJson(document);
  for (const raw of operations) {
    const operation = checkOperation(raw);
    checkApplies(current, operation);
    current = applyOperation(current as JsonValue, operation);
  }
  return current as T;
}

/**
 * Applies one operation that `checkApplies` accepted to `document`, which the caller owns. Every
 * token is a plain key (`__proto__` and `constructor` included), as evanphx/json-patch reads it.
 */
function applyOperation(document: JsonValue, operation: Operation): JsonValue {
  switch (operation.op) {
    case "add":
      return add(document, operation.path, cloneJson(operation.value as JsonValue), operation);
    case "replace":
      return add(remove(document, operation.path), operation.path, cloneJson(operation.value as JsonValue), operation);
    case "remove":
      return remove(document, operation.path);
    case "move": {
      if (operation.path === operation.from) return document;
      const value = valueAt(document, operation.from);
      return add(remove(document, operation.from), operation.path, value, operation);
    }
    case "copy":
      return add(document, operation.path, cloneJson(valueAt(document, operation.from)), operation);
    case "test":
      if (!jsonEqual(valueAt(document, operation.path), operation.value)) {
        throw patchNotApplicable(`testing value ${operation.path} failed: test failed`);
      }
      return document;
  }
}

function tokensOf(pointer: string): string[] {
  return pointer === ""
    ? []
    : pointer
        .split("/")
        .slice(1)
        .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function valueAt(document: JsonValue, pointer: string): JsonValue {
  return valueAtTokens(document, tokensOf(pointer));
}

function valueAtTokens(document: JsonValue, tokens: string[]): JsonValue {
  let node: JsonValue | undefined = document;
  for (const token of tokens) {
    node = Array.isArray(node) ? node[Number(token)] : isJsonObject(node) ? ownValue(node, token) : undefined;
  }
  return node as JsonValue;
}

/** The container a pointer ends in, and the last token. */
function parentAndKey(document: JsonValue, pointer: string): { parent: JsonValue; key: string } {
  const tokens = tokensOf(pointer);
  const key = tokens.pop() ?? "";
  return { parent: valueAtTokens(document, tokens), key };
}

function add(document: JsonValue, pointer: string, value: JsonValue, operation: Operation): JsonValue {
  if (pointer === "") return value;
  const { parent, key } = parentAndKey(document, pointer);
  if (Array.isArray(parent)) {
    const index = key === "-" ? parent.length : /^(0|[1-9][0-9]*)$/.test(key) ? Number(key) : Number.NaN;
    if (!(index <= parent.length))
      throw patchNotApplicable(
        `${operation.op} operation does not apply: Unable to access invalid index: ${key}: invalid index referenced`,
      );
    parent.splice(index, 0, value);
  } else if (isJsonObject(parent)) {
    setOwn(parent, key, value);
  } else {
    throw patchNotApplicable(`${operation.op} operation does not apply: doc is missing path: "${pointer}": missing value`);
  }
  return document;
}

function remove(document: JsonValue, pointer: string): JsonValue {
  if (pointer === "") return null;
  const { parent, key } = parentAndKey(document, pointer);
  if (Array.isArray(parent)) parent.splice(Number(key), 1);
  else if (isJsonObject(parent)) delete parent[key];
  return document;
}

function checkOperation(raw: unknown): Operation {
  if (!isJsonObject(raw)) {
    throw badRequest(`json patch operation must be an object, got ${describeValue(raw)}`);
  }
  const op = raw.op;
  if (typeof op !== "string" || !OPS.has(op)) {
    throw patchNotApplicable(`Unexpected kind: ${typeof op === "string" ? op : "unknown"}`);
  }
  if (typeof raw.path !== "string") {
    throw patchNotApplicable(`${op} operation does not apply: missing path`);
  }
  if ((op === "move" || op === "copy") && typeof raw.from !== "string") {
    throw patchNotApplicable(`${op} operation does not apply: missing from`);
  }
  if ((op === "add" || op === "replace" || op === "test") && !("value" in raw)) {
    throw patchNotApplicable(`${op} operation does not apply: missing value`);
  }
  return raw as unknown as Operation;
}

function exists(document: unknown, pointer: string): boolean {
  let node: unknown = document;
  for (const token of tokensOf(pointer)) {
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token) || Number(token) >= node.length) return false;
      node = node[Number(token)];
    } else if (isJsonObject(node)) {
      if (!Object.hasOwn(node, token)) return false;
      node = node[token];
    } else {
      return false;
    }
  }
  return true;
}

function parentOf(pointer: string): string {
  return pointer.slice(0, Math.max(0, pointer.lastIndexOf("/")));
}

/** The missing-path errors, worded as upstream's json-patch library words them. */
function checkApplies(document: unknown, operation: Operation): void {
  const missing = (message: string) => patchNotApplicable(`${message}: missing value`);
  switch (operation.op) {
    case "replace":
      if (!exists(document, operation.path)) {
        throw missing(`replace operation does not apply: doc is missing key: ${operation.path}`);
      }
      return;
    case "remove":
      if (!exists(document, operation.path)) {
        throw missing(`remove operation does not apply: doc is missing path: "${operation.path}"`);
      }
      return;
    case "add":
      if (!exists(document, parentOf(operation.path))) {
        throw missing(`add operation does not apply: doc is missing path: "${operation.path}"`);
      }
      return;
    case "move":
    case "copy":
      if (!exists(document, operation.from)) {
        throw missing(`${operation.op} operation does not apply: doc is missing from path: ${operation.from}`);
      }
      if (!exists(document, parentOf(operation.path))) {
        throw missing(`${operation.op} operation does not apply: doc is missing destination path: ${operation.path}`);
      }
      return;
    case "test":
      if (!exists(document, operation.path)) {
        throw missing(`test operation does not apply: is missing path: ${operation.path}`);
      }
      return;
    default:
      return;
  }
}
