export { applyJsonPatch, type JsonPatchOperation } from "./json-patch.js";
export { applyMergePatch } from "./merge-patch.js";
export { applyStrategicMergePatch, type StrategicMergePatchOptions } from "./strategic-merge-patch.js";
export { findUnknownFields, unknownFieldMessage, type UnknownFieldOptions } from "./unknown-fields.js";
export { findDuplicateFields, scanJsonFields, type JsonField } from "./duplicate-fields.js";
export { findStrictFieldErrors } from "./strict-fields.js";
export { META_V1, patchMetaSchemas, refName, resolveRef, schemaRef } from "./meta-schemas.js";
export { fieldSchema, resolveSchema, withObjectMeta, type Definitions } from "./schema-walk.js";
