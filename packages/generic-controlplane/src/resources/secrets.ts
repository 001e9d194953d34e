import type { KubeObject } from "../api/types.js";
import { goType } from "../schema/go-type.js";
import type { FieldError } from "../validation/field-errors.js";
import {
  childPath,
  fieldForbidden,
  fieldInvalid,
  fieldRequired,
  fieldTooLong,
  isConfigMapKey,
  keyPath,
  validateImmutableField,
} from "../validation/index.js";
import { IMMUTABLE_SET_MESSAGE, MAX_DATA_SIZE_BYTES, sameStringMap } from "./config-maps.js";
import { asRecord, defineResource } from "./define.js";
import { ageColumn } from "./printer-columns.js";
import { booleanSchema, kindSchema, stringSchema } from "./schema-parts.js";
import { base64DecodedLength, canonicalBase64, type DecodeTarget } from "../validation/wire-values.js";

export interface Secret extends KubeObject {
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  type?: string;
  immutable?: boolean;
}

/** The secret types upstream validates specially, and the data keys each requires. */
export const SecretTypes = {
  opaque: "Opaque",
  serviceAccountToken: "kubernetes.io/service-account-token",
  dockercfg: "kubernetes.io/dockercfg",
  dockerConfigJson: "kubernetes.io/dockerconfigjson",
  basicAuth: "kubernetes.io/basic-auth",
  sshAuth: "kubernetes.io/ssh-auth",
  tls: "kubernetes.io/tls",
  bootstrapToken: "bootstrap.kubernetes.io/token",
} as const;

export const SERVICE_ACCOUNT_NAME_ANNOTATION = "kubernetes.io/service-account.name";

const TARGET: DecodeTarget = { kind: "Secret", version: "v1" };

/**
 * What decoding and defaulting do before validation: data must be base64 (a 400 otherwise),
 * `stringData` is write-only and merges over `data`, and `type` defaults to Opaque.
 */
function prepare(object: Secret): void {
  // Built with entries so a key such as `__proto__` stays an ordinary key; a stringData key wins.
  const entries = new Map<string, string>();
  for (const [key, value] of Object.entries(asRecord(object.data) ?? {})) entries.set(key, canonicalBase64(value, TARGET));
  for (const [key, value] of Object.entries(asRecord(object.stringData) ?? {}))
    entries.set(key, Buffer.from(String(value), "utf8").toString("base64"));
  const data = Object.fromEntries(entries) as Record<string, string>;
  delete object.stringData;
  if (Object.keys(data).length > 0) object.data = data;
  else delete object.data;
  if (object.type === undefined || object.type === "") object.type = SecretTypes.opaque;
}

function has(data: Record<string, unknown>, key: string): boolean {
  return Object.hasOwn(data, key);
}

/** Go's error text for `json.Unmarshal(bytes, &map[string]interface{}{})`, or undefined when it succeeds. */
function goJsonObjectError(bytes: Buffer): string | undefined {
  const text = bytes.toString("utf8");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    const trimmed = text.trim();
    if (trimmed === "") return "unexpected end of JSON input";
    return `invalid character '${trimmed[0] ?? ""}' looking for beginning of value`;
  }
  if (parsed === null || (typeof parsed === "object" && !Array.isArray(parsed))) return undefined;
  const kind = Array.isArray(parsed) ? "array" : typeof parsed === "boolean" ? "bool" : typeof parsed;
  return `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`;
}

/** `ValidateSecret`: key syntax, the 1 MiB total and the keys each well-known type requires. */
export function validateSecret(object: Secret): FieldError[] {
  const errors: FieldError[] = [];
  const data = (asRecord(object.data) ?? {}) as Record<string, string>;
  let totalSize = 0;
  for (const [key, value] of Object.entries(data)) {
    for (const msg of isConfigMapKey(key)) errors.push(fieldInvalid(keyPath("data", key), key, msg));
    totalSize += typeof value === "string" ? base64DecodedLength(value) : 0;
  }
  if (totalSize > MAX_DATA_SIZE_BYTES) errors.push(fieldTooLong("data", "", MAX_DATA_SIZE_BYTES));

  const bytesOf = (key: string): Buffer => Buffer.from(data[key] ?? "", "base64");
  switch (object.type) {
    case SecretTypes.serviceAccountToken: {
      const name = object.metadata?.annotations?.[SERVICE_ACCOUNT_NAME_ANNOTATION];
      if (name === undefined || name === "")
        errors.push(fieldRequired(keyPath(childPath("metadata", "annotations"), SERVICE_ACCOUNT_NAME_ANNOTATION)));
      break;
    }
    case SecretTypes.dockercfg:
    case SecretTypes.dockerConfigJson: {
      const key = object.type === SecretTypes.dockercfg ? ".dockercfg" : ".dockerconfigjson";
      if (!has(data, key)) {
        errors.push(fieldRequired(keyPath("data", key)));
        break;
      }
      const problem = goJsonObjectError(bytesOf(key));
      if (problem !== undefined) errors.push(fieldInvalid(keyPath("data", key), "<secret contents redacted>", problem));
      break;
    }
    case SecretTypes.basicAuth:
      // Either may be empty, but at least one must be present.
      if (!has(data, "username") && !has(data, "password")) {
        errors.push(fieldRequired(keyPath("data", "username")), fieldRequired(keyPath("data", "password")));
      }
      break;
    case SecretTypes.sshAuth:
      if (bytesOf("ssh-privatekey").length === 0) errors.push(fieldRequired(keyPath("data", "ssh-privatekey")));
      break;
    case SecretTypes.tls:
      if (!has(data, "tls.crt")) errors.push(fieldRequired(keyPath("data", "tls.crt")));
      if (!has(data, "tls.key")) errors.push(fieldRequired(keyPath("data", "tls.key")));
      break;
    default:
      break;
  }
  return errors;
}

/** `ValidateSecretUpdate`: type never changes; an immutable Secret keeps its data and `immutable: true`. */
export function validateSecretUpdate(object: Secret, old: Secret): FieldError[] {
  const errors: FieldError[] = [...validateImmutableField(object.type, old.type, "type")];
  if (old.immutable === true) {
    if (object.immutable !== true) errors.push(fieldForbidden("immutable", IMMUTABLE_SET_MESSAGE));
    if (!sameStringMap(object.data, old.data)) errors.push(fieldForbidden("data", IMMUTABLE_SET_MESSAGE));
  }
  errors.push(...validateSecret(object));
  return errors;
}

const schema = kindSchema({
  group: "",
  version: "v1",
  kind: "Secret",
  description:
    "Secret holds secret data of a certain type. The total bytes of the values in the Data field must be less than MaxSecretSize bytes.",
  properties: {
    data: {
      type: "object",
      description:
        "Data contains the secret data, each value base64-encoded. Keys must consist of alphanumeric characters, '-', '_' or '.'. Values may be arbitrary bytes, unlike stringData.",
      additionalProperties: { type: "string", format: "byte" },
    },
    immutable: booleanSchema(
      "Immutable, if set to true, ensures that the data stored in the Secret cannot be updated (only object metadata can be modified). When unset or false, the field can be changed to true.",
    ),
    stringData: {
      type: "object",
      description:
        "stringData allows specifying non-binary secret data as plain strings. It is write-only: on write it is merged into the data field, overwriting existing values, and it is never output when reading from the API.",
      additionalProperties: { type: "string", default: "" },
    },
    type: goType(
      "v1.SecretType",
      stringSchema(
        "Used to facilitate programmatic handling of secret data. Defaults to Opaque and cannot be changed after creation. See https://kubernetes.io/docs/concepts/configuration/secret/#secret-types",
      ),
    ),
  },
});

/** core/v1 Secret. */
export const secretsResource = defineResource<Secret>({
  group: "",
  version: "v1",
  kind: "Secret",
  plural: "secrets",
  singular: "secret",
  scope: "Namespaced",
  schema,
  printerColumns: [
    {
      name: "Type",
      type: "string",
      description: "Used to facilitate programmatic handling of secret data.",
      cell: (object) => object.type ?? "",
    },
    {
      name: "Data",
      type: "string",
      description: "Data contains the secret data; the column counts its entries.",
      cell: (object) => Object.keys(asRecord(object.data) ?? {}).length,
    },
    ageColumn(),
  ],
  fieldSelectors: { type: (object) => object.type ?? "" },
  strategy: {
    prepareForCreate: prepare,
    prepareForUpdate: prepare,
    validate: validateSecret,
    validateUpdate: validateSecretUpdate,
  },
});
