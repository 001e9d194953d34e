import type { ResourceDefinition } from "../registry/rest/resource-definition.js";
import type { JSONSchemaProps } from "../schema/types.js";
import { setOwn } from "../patch/json-value.js";
import { refName } from "../patch/meta-schemas.js";
import { groupVersionSpec, metaDefinitions, servedGroupVersions, type OperationSpec, type ParameterSpec } from "./model.js";
import type { OpenApiOptions } from "./v3.js";

/** Swagger 2.0 JSON values (the subset this package writes). */
export type SwaggerSchema = Record<string, unknown>;

export interface SwaggerDocument {
  swagger: "2.0";
  info: { title: string; version: string };
  paths: Record<string, Record<string, SwaggerOperation>>;
  definitions: Record<string, SwaggerSchema>;
}

export interface SwaggerOperation {
  description: string;
  consumes?: string[];
  produces: string[];
  schemes: string[];
  tags: string[];
  operationId: string;
  parameters: SwaggerParameter[];
  responses: Record<string, { description: string; schema?: { $ref: string } }>;
  deprecated?: boolean;
  [extension: `x-${string}`]: unknown;
}

export interface SwaggerParameter {
  name: string;
  in: "query" | "path" | "body";
  description?: string;
  required?: boolean;
  type?: string;
  uniqueItems?: boolean;
  schema?: { $ref: string };
}

const definitionRef = (name: string) => `#/definitions/${name}`;

/**
 * The whole API as one Swagger 2.0 document (`/openapi/v2`): kubectl's apply reads strategic
 * merge metadata (`x-kubernetes-patch-merge-key`/`-strategy`) and `kubectl explain
 * --output plaintext-openapiv2` reads descriptions from it; the aggregator fetches it as JSON.
 */
export function buildOpenAPIv2(definitions: readonly ResourceDefinition[], options: OpenApiOptions = {}): SwaggerDocument {
  const groupVersions = servedGroupVersions(definitions);
  const paths: SwaggerDocument["paths"] = {};
  const allDefinitions: Record<string, JSONSchemaProps> = {};
  for (const { group, version } of groupVersions) {
    const spec = groupVersionSpec(definitions, group, version);
    for (const path of spec.paths) {
      const item: Record<string, SwaggerOperation> = {};
      for (const operation of path.operations) item[operation.method] = renderOperation(operation);
      paths[path.path] = item;
    }
    Object.assign(allDefinitions, spec.definitions);
  }
  Object.assign(allDefinitions, metaDefinitions(groupVersions));
  const rendered: Record<string, SwaggerSchema> = {};
  for (const name of Object.keys(allDefinitions).sort()) rendered[name] = toV2Schema(allDefinitions[name] as JSONSchemaProps);
  return { swagger: "2.0", info: { title: "Kubernetes", version: options.version ?? "unversioned" }, paths, definitions: rendered };
}

function renderParameter(parameter: ParameterSpec): SwaggerParameter {
  if (parameter.in === "body") {
    return { name: parameter.name, in: "body", required: true, schema: { $ref: definitionRef(parameter.schema ?? "") } };
  }
  const out: SwaggerParameter = {
    name: parameter.name,
    in: parameter.in,
    description: parameter.description,
    type: parameter.type ?? "string",
  };
  if (parameter.required === true) out.required = true;
  if (parameter.uniqueItems === true) out.uniqueItems = true;
  return out;
}

function renderOperation(operation: OperationSpec): SwaggerOperation {
  const out: SwaggerOperation = {
    description: operation.description,
    produces: operation.produces,
    schemes: ["https"],
    tags: operation.tags,
    operationId: operation.operationId,
    parameters: operation.parameters.map(renderParameter),
    responses: {},
  };
  if (operation.consumes.length > 0) out.consumes = operation.consumes;
  for (const [code, response] of Object.entries(operation.responses)) {
    out.responses[code] =
      response.schema === undefined
        ? { description: response.description }
        : { description: response.description, schema: { $ref: definitionRef(response.schema) } };
  }
  if (operation.deprecated === true) out.deprecated = true;
  out["x-kubernetes-action"] = operation.action;
  out["x-kubernetes-group-version-kind"] = operation.gvk;
  return out;
}

const DROPPED_IN_V2 = new Set(["nullable", "anyOf", "oneOf"]);

/** A JSONSchemaProps in Swagger 2.0 form: `#/definitions/` references next to their description, no OpenAPI 3-only keywords. */
export function toV2Schema(schema: JSONSchemaProps): SwaggerSchema {
  let source: JSONSchemaProps = schema;
  const single = schema.allOf?.length === 1 ? schema.allOf[0] : undefined;
  if (schema.$ref === undefined && single?.$ref !== undefined) {
    const { allOf: _allOf, ...rest } = schema;
    source = { ...rest, $ref: single.$ref };
  }
  const out: SwaggerSchema = {};
  for (const [key, value] of Object.entries(source)) {
    if (value === undefined || DROPPED_IN_V2.has(key)) continue;
    if (key === "$ref") {
      out.$ref = definitionRef(refName(value as string));
    } else if (key === "properties") {
      const properties: Record<string, SwaggerSchema> = {};
      for (const [name, child] of Object.entries(value as Record<string, JSONSchemaProps>)) setOwn(properties, name, toV2Schema(child));
      out.properties = properties;
    } else if (key === "items" || (key === "additionalProperties" && typeof value === "object")) {
      out[key] = toV2Schema(value as JSONSchemaProps);
    } else if (key === "allOf") {
      out.allOf = (value as JSONSchemaProps[]).map(toV2Schema);
    } else {
      out[key] = value;
    }
  }
  return out;
}
