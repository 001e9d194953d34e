import type { KubeObject } from "../api/types.js";
import type { FieldError } from "../validation/field-errors.js";
import { fieldForbidden, fieldInvalid, fieldTooLong, isConfigMapKey, keyPath } from "../validation/index.js";
import { asRecord, defineResource } from "./define.js";
import { ageColumn } from "./printer-columns.js";
import { booleanSchema, kindSchema } from "./schema-parts.js";
import { base64DecodedLength, canonicalBase64, type DecodeTarget } from "../validation/wire-values.js";
import { setOwn } from "../patch/json-value.js";

export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
  immutable?: boolean;
}

/** 1 MiB: upstream's `MaxSecretSize`, shared by ConfigMaps and Secrets. */
export const MAX_DATA_SIZE_BYTES = 1024 * 1024;

/** Upstream's message for edits to an object created with `immutable: true`. */
export const IMMUTABLE_SET_MESSAGE = "field is immutable when `immutable` is set";

const TARGET: DecodeTarget = { kind: "ConfigMap", version: "v1" };

function prepare(object: ConfigMap): void {
  const binaryData = asRecord(object.binaryData);
  if (binaryData) {
    for (const [key, value] of Object.entries(binaryData)) setOwn(binaryData, key, canonicalBase64(value, TARGET));
  }
}

/** `ValidateConfigMap`: key syntax, no key in both maps, and the 1 MiB total. */
export function validateConfigMap(object: ConfigMap): FieldError[] {
  const errors: FieldError[] = [];
  const data = asRecord(object.data) ?? {};
  const binaryData = asRecord(object.binaryData) ?? {};
  let totalSize = 0;
  for (const [key, value] of Object.entries(data)) {
    for (const msg of isConfigMapKey(key)) errors.push(fieldInvalid(keyPath("data", key), key, msg));
    if (Object.hasOwn(binaryData, key)) errors.push(fieldInvalid(keyPath("data", key), key, "duplicate of key present in binaryData"));
    totalSize += typeof value === "string" ? Buffer.byteLength(value, "utf8") : 0;
  }
  for (const [key, value] of Object.entries(binaryData)) {
    for (const msg of isConfigMapKey(key)) errors.push(fieldInvalid(keyPath("binaryData", key), key, msg));
    totalSize += typeof value === "string" ? base64DecodedLength(value) : 0;
  }
  if (totalSize > MAX_DATA_SIZE_BYTES) errors.push(fieldTooLong("", "", MAX_DATA_SIZE_BYTES));
  return errors;
}

/** `ValidateConfigMapUpdate`: an immutable ConfigMap keeps its data, binaryData and `immutable: true`. */
export function validateConfigMapUpdate(object: ConfigMap, old: ConfigMap): FieldError[] {
  const errors: FieldError[] = [];
  if (old.immutable === true) {
    if (object.immutable !== true) errors.push(fieldForbidden("immutable", IMMUTABLE_SET_MESSAGE));
    if (!sameStringMap(object.data, old.data)) errors.push(fieldForbidden("data", IMMUTABLE_SET_MESSAGE));
    if (!sameStringMap(object.binaryData, old.binaryData)) errors.push(fieldForbidden("binaryData", IMMUTABLE_SET_MESSAGE));
  }
  errors.push(...validateConfigMap(object));
  return errors;
}

/** Go's `reflect.DeepEqual` on maps, where a nil map differs from an empty one only in Go; JSON loses that distinction. */
export function sameStringMap(a: unknown, b: unknown): boolean {
  const left = Object.entries(asRecord(a) ?? {});
  const right = asRecord(b) ?? {};
  if (left.length !== Object.keys(right).length) return false;
  return left.every(([key, value]) => Object.hasOwn(right, key) && right[key] === value);
}

function dataCount(object: ConfigMap): number {
  return Object.keys(asRecord(object.data) ?? {}).length + Object.keys(asRecord(object.binaryData) ?? {}).length;
}

const schema = kindSchema({
  group: "",
  version: "v1",
  kind: "ConfigMap",
  description: "ConfigMap holds configuration data for pods to consume.",
  properties: {
    binaryData: {
      type: "object",
      description:
        "BinaryData contains binary data, each value base64-encoded. Keys must consist of alphanumeric characters, '-', '_' or '.' and must not also appear in the Data field.",
      additionalProperties: { type: "string", format: "byte" },
    },
    data: {
      type: "object",
      description:
        "Data contains the configuration data. Keys must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences belong in the BinaryData field; a key may not appear in both.",
      additionalProperties: { type: "string", default: "" },
    },
    immutable: booleanSchema(
      "Immutable, if set to true, ensures that the data stored in the ConfigMap cannot be updated (only object metadata can be modified). When unset or false, the field can be changed to true.",
    ),
  },
});

/** core/v1 ConfigMap. */
export const configMapsResource = defineResource<ConfigMap>({
  group: "",
  version: "v1",
  kind: "ConfigMap",
  plural: "configmaps",
  singular: "configmap",
  scope: "Namespaced",
  shortNames: ["cm"],
  schema,
  printerColumns: [
    // Upstream declares the count as a string column; the cell stays a number.
    {
      name: "Data",
      type: "string",
      description: "Data contains the configuration data; the column counts the entries of data and binaryData.",
      cell: dataCount,
    },
    ageColumn(),
  ],
  strategy: {
    prepareForCreate: prepare,
    prepareForUpdate: prepare,
    validate: validateConfigMap,
    validateUpdate: validateConfigMapUpdate,
  },
});
