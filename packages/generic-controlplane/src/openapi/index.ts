export { createOpenApiDocuments, type OpenApiDocuments } from "./documents.js";
export {
  buildOpenAPIv3,
  contentHash,
  toV3Schema,
  type OpenAPIv3,
  type OpenAPIv3Document,
  type OpenAPIv3Index,
  type OpenApiOptions,
} from "./v3.js";
export {
  buildOpenAPIv2,
  toV2Schema,
  type SwaggerDocument,
  type SwaggerOperation,
  type SwaggerParameter,
  type SwaggerSchema,
} from "./v2.js";
export { buildOpenAPIv2Protobuf, encodeGnosticDocument, OPENAPI_V2_PROTOBUF_CONTENT_TYPE } from "./v2-protobuf.js";
export { GNOSTIC_OPENAPI_V2_PROTO, gnosticDocumentType } from "./gnostic-proto.js";
export { definitionName } from "./names.js";
