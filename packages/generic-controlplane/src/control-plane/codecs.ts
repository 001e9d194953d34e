import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch, findDuplicateFields, findStrictFieldErrors, findUnknownFields } from "../patch/index.js";
import { decodeProtobuf, encodeProtobuf, protobufListParts, supportsProtobuf } from "../protobuf/codec.js";
import { toTable } from "../registry/table.js";
import type { HandlerCodecs } from "../server/served-resource.js";

/** The full set of codecs the handlers use: protobuf, every patch type, field validation and tables. */
export function handlerCodecs(): HandlerCodecs {
  return {
    decodeProtobuf,
    encodeProtobuf: (object) => (supportsProtobuf(object.apiVersion ?? "", object.kind ?? "") ? encodeProtobuf(object) : undefined),
    protobufListParts,
    applyJsonPatch: (original, patch) => applyJsonPatch(original, patch),
    applyMergePatch: (original, patch) => applyMergePatch(original, patch),
    applyStrategicMergePatch: (original, patch, schema) => applyStrategicMergePatch(original, patch, schema),
    findUnknownFields: (object, schema) => findUnknownFields(object, schema),
    findDuplicateFields: (text, contentType) => findDuplicateFields(text, contentType),
    findStrictFieldErrors: (text, contentType, object, schema) => findStrictFieldErrors(text, contentType, object, schema),
    toTable: (definition, objects, tableOptions) => toTable(definition, objects, tableOptions),
  };
}
