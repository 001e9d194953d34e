import type { ResourceDefinition } from "../registry/rest/resource-definition.js";
import { buildOpenAPIv2 } from "./v2.js";
import { encodeGnosticDocument } from "./v2-protobuf.js";
import { buildOpenAPIv3, type OpenAPIv3, type OpenAPIv3Index, type OpenApiOptions } from "./v3.js";

/** The OpenAPI documents of a fixed set of served resources, each built on first use and then reused. */
export interface OpenApiDocuments {
  /** `GET /openapi/v3`. */
  v3Index(): OpenAPIv3Index;
  /** `GET /openapi/v3/<path>` for `api/v1` or `apis/<group>/<version>`; undefined when not served. */
  v3Document(path: string): { json: string; hash: string } | undefined;
  /** `GET /openapi/v2` with a protobuf Accept (what kubectl sends). */
  v2Protobuf(): Uint8Array;
  /** `GET /openapi/v2` as JSON. */
  v2Json(): string;
}

export function createOpenApiDocuments(definitions: readonly ResourceDefinition[], options: OpenApiOptions = {}): OpenApiDocuments {
  const snapshot = [...definitions];
  let v3: OpenAPIv3 | undefined;
  let swagger: ReturnType<typeof buildOpenAPIv2> | undefined;
  let swaggerJson: string | undefined;
  let swaggerProtobuf: Uint8Array | undefined;
  const getV3 = () => (v3 ??= buildOpenAPIv3(snapshot, options));
  const getSwagger = () => (swagger ??= buildOpenAPIv2(snapshot, options));
  return {
    v3Index: () => getV3().index,
    v3Document: (path) => {
      const doc = getV3().documents.get(path.replace(/^\/+|\/+$/g, ""));
      return doc === undefined ? undefined : { json: doc.json, hash: doc.hash };
    },
    v2Protobuf: () => (swaggerProtobuf ??= encodeGnosticDocument(getSwagger())),
    v2Json: () => (swaggerJson ??= JSON.stringify(getSwagger())),
  };
}
