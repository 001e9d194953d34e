import { createHash } from "node:crypto";
import type { ResourceDefinition } from "../registry/rest/resource-definition.js";
import type { JSONSchemaProps } from "../schema/types.js";
import { setOwn } from "../patch/json-value.js";
import { schemaRef } from "../patch/meta-schemas.js";
import { groupVersionPath } from "./names.js";
import { groupVersionSpec, metaDefinitions, servedGroupVersions, type OperationSpec, type ParameterSpec } from "./model.js";

export interface OpenApiOptions {
  /** `info.version` of the documents, e.g. the server's gitVersion. */
  version?: string;
}

export interface OpenAPIv3Index {
  paths: Record<string, { serverRelativeURL: string }>;
}

export interface OpenAPIv3Document {
  /** The document, as served. */
  document: Record<string, unknown>;
  json: string;
  /** Upper-case hex SHA-512 of `json`: the `?hash=` of the index URL and the ETag. */
  hash: string;
}

export interface OpenAPIv3 {
  index: OpenAPIv3Index;
  /** Keyed by index path: `api/v1`, `apis/<group>/<version>`. */
  documents: Map<string, OpenAPIv3Document>;
}

/** kube-openapi's content hash: SHA-512, upper-case hex. */
export function contentHash(text: string | Uint8Array): string {
  return createHash("sha512").update(text).digest("hex").toUpperCase();
}

/**
 * OpenAPI 3.0 as kube-apiserver publishes it at `/openapi/v3`: an index of per-group-version
 * documents with content-hash URLs, and for each group-version every path and verb, PATCH
 * operations carrying `fieldValidation` (kubectl ≥1.27 only validates server-side then),
 * `x-kubernetes-action` and `x-kubernetes-group-version-kind` on operations, and the resource
 * and meta/v1 schemas under `components.schemas` (what `kubectl explain` reads).
 */
export function buildOpenAPIv3(definitions: readonly ResourceDefinition[], options: OpenApiOptions = {}): OpenAPIv3 {
  const groupVersions = servedGroupVersions(definitions);
  const meta = metaDefinitions(groupVersions);
  const documents = new Map<string, OpenAPIv3Document>();
  const index: OpenAPIv3Index = { paths: {} };
  for (const { group, version } of groupVersions) {
    const spec = groupVersionSpec(definitions, group, version);
    const paths: Record<string, Record<string, unknown>> = {};
    for (const path of spec.paths) {
      const item: Record<string, unknown> = {};
      for (const operation of path.operations) item[operation.method] = renderOperation(operation);
      paths[path.path] = item;
    }
    const schemas: Record<string, unknown> = {};
    for (const [name, schema] of Object.entries({ ...spec.definitions, ...meta }).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      schemas[name] = toV3Schema(schema);
    }
    const document = {
      openapi: "3.0.0",
      info: { title: "Kubernetes", version: options.version ?? "unversioned" },
      paths,
      components: {
        schemas,
        securitySchemes: {
          BearerToken: { type: "apiKey", description: "Bearer Token authentication", name: "authorization", in: "header" },
        },
      },
    };
    const json = JSON.stringify(document);
    const hash = contentHash(json);
    const key = groupVersionPath(group, version);
    documents.set(key, { document, json, hash });
    index.paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hash}` };
  }
  return { index, documents };
}

function renderParameter(parameter: ParameterSpec): Record<string, unknown> {
  const schema: Record<string, unknown> = { type: parameter.type ?? "string" };
  if (parameter.uniqueItems === true) schema.uniqueItems = true;
  const out: Record<string, unknown> = { name: parameter.name, in: parameter.in, description: parameter.description };
  if (parameter.required === true) out.required = true;
  out.schema = schema;
  return out;
}

function renderOperation(operation: OperationSpec): Record<string, unknown> {
  const out: Record<string, unknown> = {
    tags: operation.tags,
    description: operation.description,
    operationId: operation.operationId,
    parameters: operation.parameters.filter((p) => p.in !== "body").map(renderParameter),
  };
  const body = operation.parameters.find((p) => p.in === "body");
  if (body?.schema !== undefined) {
    const content: Record<string, unknown> = {};
    for (const type of operation.consumes) content[type] = { schema: { $ref: schemaRef(body.schema) } };
    out.requestBody = { content, required: true };
  }
  const responses: Record<string, unknown> = {};
  for (const [code, response] of Object.entries(operation.responses)) {
    const rendered: Record<string, unknown> = { description: response.description };
    if (response.schema !== undefined) {
      const content: Record<string, unknown> = {};
      for (const type of operation.produces) content[type] = { schema: { $ref: schemaRef(response.schema) } };
      rendered.content = content;
    }
    responses[code] = rendered;
  }
  out.responses = responses;
  if (operation.deprecated === true) out.deprecated = true;
  out["x-kubernetes-action"] = operation.action;
  out["x-kubernetes-group-version-kind"] = operation.gvk;
  return out;
}

/**
 * OpenAPI 3.0 ignores keywords next to `$ref`, so a reference that carries a description (or
 * patch extensions) is wrapped in `allOf`, as kube-openapi does.
 */
export function toV3Schema(schema: JSONSchemaProps): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (value === undefined) continue;
    if (key === "properties") {
      const properties: Record<string, unknown> = {};
      for (const [name, child] of Object.entries(value as Record<string, JSONSchemaProps>)) setOwn(properties, name, toV3Schema(child));
      out.properties = properties;
    } else if (key === "items" || (key === "additionalProperties" && typeof value === "object")) {
      out[key] = toV3Schema(value as JSONSchemaProps);
    } else if (key === "allOf" || key === "anyOf" || key === "oneOf") {
      out[key] = (value as JSONSchemaProps[]).map(toV3Schema);
    } else {
      out[key] = value;
    }
  }
  if (typeof out.$ref === "string" && Object.keys(out).length > 1) {
    const { $ref, ...rest } = out;
    return { ...rest, allOf: [{ $ref }] };
  }
  return out;
}
