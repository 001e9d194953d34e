import { Lexer, parseDocument } from "yaml";
import { OBJECT_MEDIA_TYPES, badRequest, unsupportedMediaType } from "../../../api/errors/index.js";
import { isControlPlaneError } from "../../../api/errors/control-plane-error.js";
import type { KubeObject } from "../../../api/types.js";
import { findStrictFieldErrors, findUnknownFields } from "../../../patch/index.js";
import { decodeProtobuf } from "../../../protobuf/codec.js";
import type { ProtobufMessages } from "../../../protobuf/message-types.js";
import type { JSONSchemaProps } from "../../../schema/types.js";
import type { RequestContext } from "../../context.js";
import { bodyFormat } from "../negotiation/negotiation.js";
import type { RequestScope } from "../../request-scope.js";
import { warningHeader } from "../responsewriters/status.js";
import type { FieldValidation } from "../options/write-options.js";
import { checkFieldTypes } from "../../../validation/field-types.js";
import { checkDecodedBody, MAX_NESTING_DEPTH } from "./decode-limits.js";
import { goJsonSyntaxError } from "./go-json-syntax.js";
import { asDecodedInteger, mayHoldLongIntegers, parseExactJson } from "../../../api/exact-json.js";

/**
 * A request body in the format its Content-Type names (JSON when absent, YAML, or protobuf), as
 * upstream decodes a body with the resource's serializers; any other type is 415. `text` is the
 * body's text for the textual formats (fieldValidation reads it for duplicate keys).
 */
export function decodeBody(
  body: Buffer,
  contentType: string | undefined,
  protobuf: ProtobufMessages,
  syntaxMessage?: JsonSyntaxMessage,
): { value: unknown; text: string | undefined; format: "json" | "yaml" | "protobuf" } {
  const format = bodyFormat(contentType);
  switch (format) {
    case "json":
    case "yaml": {
      const text = body.toString("utf8");
      return { value: format === "json" ? parseJson(text, syntaxMessage) : parseYaml(text), text, format };
    }
    case "protobuf":
      return { value: decodeProtobuf(body, protobuf), text: undefined, format };
    default:
      throw unsupportedMediaType(contentType ?? "", OBJECT_MEDIA_TYPES);
  }
}

/**
 * Decodes a create/update body (JSON, no Content-Type, YAML or protobuf) and applies
 * `fieldValidation`: unknown and duplicate fields fail the request (Strict), become `Warning`
 * headers (Warn), or are dropped silently (Ignore) — a typed kube-apiserver drops them too.
 */
export function decodeObject(ctx: RequestContext, body: Buffer, scope: RequestScope, validation: FieldValidation): KubeObject {
  const definition = scope.definition;
  const {
    value: object,
    text,
    format,
  } = decodeBody(body, ctx.req.headers["content-type"], ctx.protobuf, (syntaxError) =>
    unrecognizedBody(definition.kind, syntaxError, body),
  );
  if (object === null || typeof object !== "object" || Array.isArray(object)) {
    throw badRequest(`the object provided is unrecognized (must be of type ${definition.kind}): the body is not a JSON object`);
  }
  const kubeObject = object as KubeObject;
  // Type errors come first, as Go's decoder reports them before fieldValidation sees the body.
  // Exact literals matter only where JSON.parse may have rounded an integer.
  checkFieldTypes(kubeObject, definition, text !== undefined && mayHoldLongIntegers(text) ? numberLiteral : undefined);
  // Protobuf bodies are typed messages: they cannot carry unknown or duplicate fields.
  if (text !== undefined)
    checkFields(ctx, kubeObject, scope, validation, text, format === "yaml" ? "application/yaml" : "application/json");
  return kubeObject;
}

/**
 * upstream's transformDecodeError for a body whose kind could not be read: the serializer's
 * `couldn't get version/kind` error and the first 30 bytes of the body (summarizeData).
 */
function unrecognizedBody(kind: string, syntaxError: string, body: Buffer): string {
  return `the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; json parse error: ${syntaxError} (${summarizeBody(body)})`;
}

/** upstream's summarizeData: an object's text, anything else in hex, cut at 30 bytes. */
function summarizeBody(body: Buffer): string {
  const SUMMARY_BYTES = 30;
  if (body.length === 0) return "<empty>";
  const head = body.subarray(0, SUMMARY_BYTES);
  const shown = body[0] === 0x7b ? head.toString("utf8") : head.toString("hex");
  return body.length > SUMMARY_BYTES ? `${shown} ...` : shown;
}

/**
 * fieldValidation of a body: Strict fails with every unknown and duplicate field in upstream's
 * order, Warn sends them as Warning headers; unknown fields are dropped unless the request fails.
 */
function checkFields(
  ctx: RequestContext,
  object: KubeObject,
  scope: RequestScope,
  validation: FieldValidation,
  text: string,
  contentType: string,
): void {
  const schema = scope.fieldSchema;
  if (validation !== "Ignore") {
    const problems = findStrictFieldErrors(text, contentType, object, schema, { customResource: scope.definition.unstructured === true });
    reportProblems(ctx, validation, problems);
    // Nothing unknown was reported: nothing to drop.
    if (!problems.some((p) => p.startsWith("unknown field"))) return;
  }
  pruneUnknown(object, schema);
}

function unknownMessages(object: KubeObject, schema: JSONSchemaProps | undefined): string[] {
  if (schema === undefined) return [];
  return findUnknownFields(object, schema).map((path) => `unknown field ${JSON.stringify(path)}`);
}

/** A typed kube-apiserver never stores fields its types lack. */
function pruneUnknown(object: KubeObject, schema: JSONSchemaProps | undefined): void {
  if (schema === undefined) return;
  const unknown = findUnknownFields(object, schema);
  if (unknown.length > 0) removeFieldPaths(object, unknown);
}

/** Unknown-field handling of a patch result (duplicates were a matter of the patch body). */
export function checkUnknownFields(ctx: RequestContext, object: KubeObject, scope: RequestScope, validation: FieldValidation): void {
  if (validation !== "Ignore") reportProblems(ctx, validation, unknownMessages(object, scope.fieldSchema));
  pruneUnknown(object, scope.fieldSchema);
}

function reportProblems(ctx: RequestContext, validation: FieldValidation, problems: string[]): void {
  if (problems.length === 0 || validation === "Ignore") return;
  if (validation === "Strict") throw badRequest(`strict decoding error: ${strictDecodingErrors(problems)}`);
  for (const problem of problems) ctx.warnings.push(warningHeader(problem));
}

/** go-yaml's duplicate keys are one error (`yaml: unmarshal errors:` and a line each), then the rest. */
function strictDecodingErrors(problems: string[]): string {
  const yamlErrors = problems.filter((problem) => YAML_KEY_ERROR.test(problem));
  const others = problems.filter((problem) => !YAML_KEY_ERROR.test(problem));
  return [...(yamlErrors.length === 0 ? [] : [yamlUnmarshalErrors(yamlErrors)]), ...others].join(", ");
}

const YAML_KEY_ERROR = /^line \d+: key /;

/** go-yaml's `yaml.TypeError` text for several errors: a header, then each on its own indented line. */
export function yamlUnmarshalErrors(errors: string[]): string {
  return `yaml: unmarshal errors:\n  ${errors.join("\n  ")}`;
}

/** Number literals JSON.parse rounded and no int64 holds, by the object or array holding them. */
const numberLiterals = new WeakMap<object, Map<string, string>>();

/** The literal a client sent for `holder[key]`, when it is a number no int64 or double holds exactly. */
export function numberLiteral(holder: object, key: string): string | undefined {
  return numberLiterals.get(holder)?.get(key);
}

/** Integer literals that fit int64 decode as exact bigints; the others keep their literal for error messages. */
function keepLiteral(holder: object, key: string, source: string): void {
  let literals = numberLiterals.get(holder);
  if (literals === undefined) numberLiterals.set(holder, (literals = new Map<string, string>()));
  literals.set(key, source);
}

function parseJsonText(text: string): unknown {
  return parseExactJson(text, keepLiteral);
}

/** The Status message for a body Go's JSON decoder would refuse, from the decoder's own error. */
export type JsonSyntaxMessage = (syntaxError: string) => string;

const requestBodyMessage: JsonSyntaxMessage = (syntaxError) => `error decoding request body: json parse error: ${syntaxError}`;

export function parseJson(text: string, syntaxMessage: JsonSyntaxMessage = requestBodyMessage): unknown {
  if (text.length === 0) throw badRequest("the body of the request was empty");
  let value: unknown;
  try {
    value = parseJsonText(text);
  } catch (error) {
    // Clients (and their users) read Go's wording from a kube-apiserver; JavaScript's is the fallback.
    const syntaxError = goJsonSyntaxError(Buffer.from(text, "utf8")) ?? (error as Error).message;
    throw badRequest(syntaxMessage(syntaxError), { cause: error });
  }
  checkDecodedBody(value, "json");
  return value;
}

/**
 * One YAML document as JSON. Aliases are capped (a "billion laughs" body is a 400, as go-yaml
 * refuses excessive aliasing), and values JSON cannot hold or over-deep nesting are refused.
 */
export function parseYaml(text: string): unknown {
  let value: unknown;
  // Most YAML bodies are JSON (kubectl's apply patches are): read those as JSON, which is exact
  // about large integers and does not recurse per nesting level like the YAML parser.
  if (/^\s*\{/.test(text)) {
    try {
      value = parseJsonText(text);
      checkDecodedBody(value, "yaml");
      return value;
    } catch (error) {
      if (isControlPlaneError(error)) throw error;
    }
  }
  if (flowDepthExceeds(text, MAX_NESTING_DEPTH)) throw badRequest("error decoding YAML: exceeded max depth");
  try {
    // Integers are read as bigints, so none is rounded before it is known to need an int64.
    const doc = parseDocument(text, { uniqueKeys: false, intAsBigInt: true });
    const error = doc.errors[0];
    if (error) throw error;
    value = exactIntegers(doc.toJS({ maxAliasCount: YAML_MAX_ALIAS_COUNT }));
  } catch (error) {
    throw badRequest(`error decoding YAML: ${yamlFailure(error)}`, { cause: error });
  }
  checkDecodedBody(value, "yaml");
  return value;
}

/**
 * Whether `text` opens more than `limit` flow collections (`[`, `{`) inside one another. Found from
 * the yaml package's lexer, which stops here at the first level past the limit: its parser would
 * spend seconds on a 3 MiB body of brackets before giving up.
 */
function flowDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  for (const token of new Lexer().lex(text)) {
    if (token === "[" || token === "{") {
      if (++depth > limit) return true;
    } else if (token === "]" || token === "}") depth--;
  }
  return false;
}

/**
 * `value` with every integer the YAML parser read as a bigint held as a JSON decode holds it
 * (asDecodedInteger), replaced in place; iterative, as YAML nests as deep as JSON.
 */
function exactIntegers(value: unknown): unknown {
  if (typeof value === "bigint") return asDecodedInteger(value);
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const current = pending.pop();
    if (current === null || typeof current !== "object" || ArrayBuffer.isView(current)) continue;
    const holder = current as Record<string, unknown>;
    for (const key of Object.keys(holder)) {
      const item = holder[key];
      if (typeof item === "bigint") holder[key] = asDecodedInteger(item);
      else if (item !== null && typeof item === "object") pending.push(item);
    }
  }
  return value;
}

/**
 * The parser's failures on hostile input (alias expansion, nesting) are the body's fault. It
 * recurses per level, so running out of stack (reported directly or as a parse error) means the
 * nesting is too deep.
 */
function yamlFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return error instanceof RangeError || message.includes("Maximum call stack size exceeded") ? "exceeded max depth" : message;
}

/** Alias expansions one YAML body may make (the yaml package's default, stated here on purpose). */
const YAML_MAX_ALIAS_COUNT = 100;

/** Removes fields addressed as `spec.x`, `items[0].y`, `data[some key]` — the paths findUnknownFields reports. */
export function removeFieldPaths(object: Record<string, unknown>, paths: string[]): void {
  for (const path of paths) {
    const segments = splitFieldPath(path);
    let cursor: unknown = object;
    for (let i = 0; i < segments.length - 1 && cursor !== undefined; i++) {
      cursor =
        cursor !== null && typeof cursor === "object" && Object.hasOwn(cursor, segments[i] as string)
          ? (cursor as Record<string, unknown>)[segments[i] as string]
          : undefined;
    }
    const last = segments[segments.length - 1];
    if (last !== undefined && cursor !== null && typeof cursor === "object" && !Array.isArray(cursor)) {
      delete (cursor as Record<string, unknown>)[last];
    }
  }
}

function splitFieldPath(path: string): string[] {
  const out: string[] = [];
  const pattern = /([^.[\]]+)|\[([^\]]*)\]/g;
  let match: RegExpExecArray | null;
  while ((match = pattern.exec(path)) !== null) out.push((match[1] ?? match[2]) as string);
  return out;
}
