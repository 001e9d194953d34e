import { stringify } from "yaml";
import type { ResourceDefinition } from "../registry/rest/resource-definition.js";
import { gnosticDocumentType } from "./gnostic-proto.js";
import { buildOpenAPIv2, type SwaggerDocument, type SwaggerOperation, type SwaggerParameter, type SwaggerSchema } from "./v2.js";
import type { OpenApiOptions } from "./v3.js";

/** What kubectl and client-go ask `/openapi/v2` for (note `.v1.0`, not `@v1.0`: kubectl 1.20 rejects the latter). */
export const OPENAPI_V2_PROTOBUF_CONTENT_TYPE = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

type Message = Record<string, unknown>;

/** gnostic keeps every extension and `Any` value as YAML text; kube-openapi unmarshals that YAML. */
function any(value: unknown): Message {
  return { yaml: stringify(value) };
}

function vendorExtensions(source: Record<string, unknown>): Message[] {
  return Object.entries(source)
    .filter(([key, value]) => key.startsWith("x-") && value !== undefined)
    .map(([name, value]) => ({ name, value: any(value) }));
}

const NUMBER_FIELDS: Record<string, string> = {
  multipleOf: "multiple_of",
  maximum: "maximum",
  minimum: "minimum",
  maxLength: "max_length",
  minLength: "min_length",
  maxItems: "max_items",
  minItems: "min_items",
  maxProperties: "max_properties",
  minProperties: "min_properties",
};

function schemaMessage(schema: SwaggerSchema): Message {
  const out: Message = {};
  for (const [key, value] of Object.entries(schema)) {
    if (value === undefined) continue;
    switch (key) {
      case "$ref":
        out._ref = value;
        break;
      case "format":
      case "title":
      case "description":
      case "pattern":
      case "discriminator":
        out[key] = value;
        break;
      case "default":
        out.default = any(value);
        break;
      case "example":
        out.example = any(value);
        break;
      case "exclusiveMaximum":
        out.exclusive_maximum = value;
        break;
      case "exclusiveMinimum":
        out.exclusive_minimum = value;
        break;
      case "uniqueItems":
        out.unique_items = value;
        break;
      case "readOnly":
        out.read_only = value;
        break;
      case "required":
        out.required = value;
        break;
      case "enum":
        out.enum = (value as unknown[]).map(any);
        break;
      case "type":
        out.type = { value: Array.isArray(value) ? value : [value] };
        break;
      case "items":
        out.items = { schema: [schemaMessage(value as SwaggerSchema)] };
        break;
      case "allOf":
        out.all_of = (value as SwaggerSchema[]).map(schemaMessage);
        break;
      case "properties":
        out.properties = {
          additional_properties: Object.entries(value as Record<string, SwaggerSchema>).map(([name, child]) => ({
            name,
            value: schemaMessage(child),
          })),
        };
        break;
      case "additionalProperties":
        out.additional_properties = typeof value === "boolean" ? { boolean: value } : { schema: schemaMessage(value as SwaggerSchema) };
        break;
      default: {
        const numeric = NUMBER_FIELDS[key];
        if (numeric !== undefined && typeof value === "number") out[numeric] = value;
      }
    }
  }
  const extensions = vendorExtensions(schema);
  if (extensions.length > 0) out.vendor_extension = extensions;
  return out;
}

function parameterMessage(parameter: SwaggerParameter): Message {
  if (parameter.in === "body") {
    return {
      parameter: {
        body_parameter: {
          name: parameter.name,
          in: "body",
          required: parameter.required === true,
          schema: schemaMessage(parameter.schema ?? {}),
          description: parameter.description ?? "",
        },
      },
    };
  }
  const sub: Message = {
    required: parameter.required === true,
    in: parameter.in,
    description: parameter.description ?? "",
    name: parameter.name,
    type: parameter.type ?? "string",
    unique_items: parameter.uniqueItems === true,
  };
  const nonBody = parameter.in === "path" ? { path_parameter_sub_schema: sub } : { query_parameter_sub_schema: sub };
  return { parameter: { non_body_parameter: nonBody } };
}

function operationMessage(operation: SwaggerOperation): Message {
  return {
    tags: operation.tags,
    description: operation.description,
    operation_id: operation.operationId,
    produces: operation.produces,
    consumes: operation.consumes ?? [],
    parameters: operation.parameters.map(parameterMessage),
    responses: {
      response_code: Object.entries(operation.responses).map(([name, response]) => ({
        name,
        value: {
          response: {
            description: response.description,
            ...(response.schema === undefined ? {} : { schema: { schema: schemaMessage(response.schema) } }),
          },
        },
      })),
    },
    schemes: operation.schemes,
    deprecated: operation.deprecated === true,
    vendor_extension: vendorExtensions(operation as unknown as Record<string, unknown>),
  };
}

/** A Swagger 2.0 document as the `openapi.v2.Document` message object protobufjs encodes. */
export function toGnosticDocument(document: SwaggerDocument): Message {
  return {
    swagger: document.swagger,
    info: { title: document.info.title, version: document.info.version },
    paths: {
      path: Object.entries(document.paths).map(([name, item]) => ({
        name,
        value: Object.fromEntries(Object.entries(item).map(([method, operation]) => [method, operationMessage(operation)])),
      })),
    },
    definitions: {
      additional_properties: Object.entries(document.definitions).map(([name, schema]) => ({ name, value: schemaMessage(schema) })),
    },
  };
}

/** Encodes a Swagger 2.0 document as gnostic protobuf. */
export function encodeGnosticDocument(document: SwaggerDocument): Uint8Array {
  const type = gnosticDocumentType();
  return type.encode(type.fromObject(toGnosticDocument(document))).finish();
}

/**
 * `/openapi/v2` in the form kubectl requests: the full Swagger 2.0 document encoded as gnostic's
 * `openapi_v2.Document`, served as {@link OPENAPI_V2_PROTOBUF_CONTENT_TYPE}.
 */
export function buildOpenAPIv2Protobuf(definitions: readonly ResourceDefinition[], options: OpenApiOptions = {}): Uint8Array {
  return encodeGnosticDocument(buildOpenAPIv2(definitions, options));
}
