import { buildOpenAPIv3, type OpenAPIv3 } from "../openapi/v3.js";
import type { ResourceDefinition } from "../registry/resource-definition.js";
import type { OpenApiDocuments } from "./documents.js";

/**
 * The smallest valid gnostic OpenAPI v2 message (`swagger: "2.0"`, an info block, no paths):
 * kubectl's apply accepts it and falls back to its compiled-in strategic-merge metadata.
 */
const MINIMAL_V2_PROTOBUF = Uint8Array.from([0x0a, 0x03, 0x32, 0x2e, 0x30, 0x12, 0x06, 0x0a, 0x01, 0x78, 0x12, 0x01, 0x76, 0x42, 0x00]);

/** The OpenAPI documents of a set of definitions, built on first use and kept until the set changes. */
export function openApiDocuments(definitions: readonly ResourceDefinition[], version: string): OpenApiDocuments {
  let v3: OpenAPIv3 | undefined;
  const getV3 = () => (v3 ??= buildOpenAPIv3(definitions, { version }));
  return {
    v3Index: () => getV3().index,
    v3Document: (path) => {
      const doc = getV3().documents.get(path);
      return doc === undefined ? undefined : { json: doc.json, hash: doc.hash };
    },
    v2Protobuf: () => MINIMAL_V2_PROTOBUF,
    v2Json: () => JSON.stringify({ swagger: "2.0", info: { title: "Kubernetes", version }, paths: {}, definitions: {} }),
  };
}
