import { parseDocument } from "yaml";
import { ControlPlaneError } from "../errors.js";
import type { KubeObject } from "../api/types.js";
import type { ResourceDefinition } from "../registry/resource-definition.js";
import type { RequestContext } from "./context.js";
import { bodyFormat } from "./negotiation.js";
import type { HandlerCodecs } from "./served-resource.js";
import { warningHeader } from "./status.js";
import type { FieldValidation } from "./write-options.js";

const ACCEPTED_OBJECT_TYPES = "application/json, application/yaml, application/vnd.kubernetes.protobuf";

export function unsupportedMediaType(contentType: string, accepted: string): ControlPlaneError {
  return new ControlPlaneError(
    "UnsupportedMediaType",
    `the body of the request was in an unknown format - accepted media types include: ${accepted}`,
    { details: { causes: [{ reason: "UnexpectedServerResponse", message: `unsupported media type ${JSON.stringify(contentType)}` }] } },
  );
}

/**
 * Decodes a create/update body (JSON, no Content-Type, YAML or protobuf) and applies
 * `fieldValidation`: unknown and duplicate fields fail the request (Strict), become `Warning`
 * headers (Warn), or are dropped silently (Ignore) — a typed kube-apiserver drops them too.
 */
export function decodeObject(
  ctx: RequestContext,
  body: Buffer,
  definition: ResourceDefinition,
  codecs: HandlerCodecs,
  validation: FieldValidation,
): KubeObject {
  const contentType = ctx.req.headers["content-type"];
  const format = bodyFormat(contentType);
  let object: unknown;
  const problems: string[] = [];
  switch (format) {
    case "json": {
      const text = body.toString("utf8");
      object = parseJson(text);
      if (validation !== "Ignore" && codecs.findDuplicateFields) problems.push(...codecs.findDuplicateFields(text, "application/json"));
      break;
    }
    case "yaml": {
      const text = body.toString("utf8");
      object = parseYaml(text);
      if (validation !== "Ignore" && codecs.findDuplicateFields) problems.push(...codecs.findDuplicateFields(text, "application/yaml"));
      break;
    }
    case "protobuf":
      if (!codecs.decodeProtobuf) throw unsupportedMediaType(contentType ?? "", "application/json, application/yaml");
      object = codecs.decodeProtobuf(body);
      break;
    default:
      throw unsupportedMediaType(contentType ?? "", ACCEPTED_OBJECT_TYPES);
  }
  if (object === null || typeof object !== "object" || Array.isArray(object)) {
    throw new ControlPlaneError("BadRequest", `the object provided is unrecognized (must be of type ${definition.kind}): the body is not a JSON object`);
  }
  const kubeObject = object as KubeObject;
  if (format !== "protobuf") checkUnknownFields(ctx, kubeObject, definition, codecs, validation, problems);
  else reportProblems(ctx, validation, problems);
  return kubeObject;
}

/** Unknown-field handling shared by object bodies and patch results. */
export function checkUnknownFields(
  ctx: RequestContext,
  object: KubeObject,
  definition: ResourceDefinition,
  codecs: HandlerCodecs,
  validation: FieldValidation,
  problems: string[] = [],
): void {
  const schema = definition.schema;
  if (schema !== undefined && codecs.findUnknownFields && schema["x-kubernetes-preserve-unknown-fields"] !== true) {
    const unknown = codecs.findUnknownFields(object, schema);
    if (unknown.length > 0) {
      for (const path of unknown) problems.push(`unknown field ${JSON.stringify(path)}`);
      if (validation !== "Strict") removeFieldPaths(object, unknown);
    }
  }
  reportProblems(ctx, validation, problems);
}

function reportProblems(ctx: RequestContext, validation: FieldValidation, problems: string[]): void {
  if (problems.length === 0 || validation === "Ignore") return;
  if (validation === "Strict") throw new ControlPlaneError("BadRequest", `strict decoding error: ${problems.join(", ")}`);
  for (const problem of problems) ctx.warnings.push(warningHeader(problem));
}

export function parseJson(text: string): unknown {
  if (text.length === 0) throw new ControlPlaneError("BadRequest", "the body of the request was empty");
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ControlPlaneError("BadRequest", `error decoding request body: json parse error: ${(error as Error).message}`, { cause: error });
  }
}

export function parseYaml(text: string): unknown {
  const doc = parseDocument(text, { uniqueKeys: false });
  const error = doc.errors[0];
  if (error) throw new ControlPlaneError("BadRequest", `error decoding YAML: ${error.message}`);
  return doc.toJS();
}

/** Removes fields addressed as `spec.x`, `items[0].y`, `data[some key]` — the paths findUnknownFields reports. */
export function removeFieldPaths(object: Record<string, unknown>, paths: string[]): void {
  for (const path of paths) {
    const segments = splitFieldPath(path);
    let cursor: unknown = object;
    for (let i = 0; i < segments.length - 1 && cursor !== undefined; i++) {
      cursor = cursor !== null && typeof cursor === "object" ? (cursor as Record<string, unknown>)[segments[i] as string] : undefined;
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
