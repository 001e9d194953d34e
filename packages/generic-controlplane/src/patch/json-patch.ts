import jsonPatch from "fast-json-patch";
import type { Operation } from "fast-json-patch";
import { badRequest, patchNotApplicable, requestEntityTooLarge } from "../api/errors/index.js";
import type { ControlPlaneError } from "../errors.js";
import { cloneJson, describeValue, isJsonObject } from "./json-value.js";

export type JsonPatchOperation = Operation;

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
    try {
      current = jsonPatch.applyOperation(current, operation, true, true, true).newDocument;
    } catch (error) {
      throw translate(error, operation);
    }
  }
  return current as T;
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
  if (pointer === "") return true;
  const tokens = pointer.split("/").slice(1).map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
  let node: unknown = document;
  for (const token of tokens) {
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

function translate(error: unknown, operation: Operation): ControlPlaneError {
  const name = error instanceof Error ? error.name : "";
  if (name === "TEST_OPERATION_FAILED") {
    return patchNotApplicable(`testing value ${operation.path} failed: test failed`, { cause: error });
  }
  const message = error instanceof Error ? error.message.split("\n")[0] ?? error.message : String(error);
  return patchNotApplicable(`${operation.op} operation does not apply: ${message}`, { cause: error });
}
