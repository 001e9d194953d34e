import type protobuf from "protobufjs";
import { formatMicroTime } from "../validation/wire-values.js";
import {
  FIELDS_V1_TYPE,
  INT_OR_STRING_TYPE,
  MAP_ENTRY_SUFFIX,
  MICRO_TIME_TYPE,
  QUANTITY_TYPE,
  RAW_EXTENSION_TYPE,
  STRING_LIST_TYPES,
  TIME_TYPE,
  fieldKey,
  type JsonFieldRules,
} from "./message-types.js";

/**
 * Conversion between decoded protobuf messages and the JSON form a JSON client sends for the same
 * object: bytes as base64, `Time` as RFC 3339 seconds, `MicroTime` with six fractional digits,
 * `FieldsV1` as its raw JSON, int64 as numbers, and Go's `omitempty` rules for what is left out.
 */

type Plain = Record<string, unknown>;

function fullName(type: protobuf.Type): string {
  return type.fullName.replace(/^\./, "");
}

function toNumber(value: unknown): number {
  if (typeof value === "number") return value;
  if (value !== null && typeof value === "object" && "toNumber" in value && typeof value.toNumber === "function")
    return (value as { toNumber(): number }).toNumber();
  return Number(value);
}

/** A 64-bit wire integer as the decoded JSON form holds it: a number when exact, else a bigint. */
function toExactInteger(value: unknown): number | bigint {
  const number = toNumber(value);
  // protobufjs hands 64-bit integers over as a Long, whose toString is the exact decimal.
  if (Number.isSafeInteger(number) || value === null || typeof value !== "object" || !("toString" in value)) return number;
  return BigInt((value as { toString(): string }).toString());
}

function isZero(value: unknown): boolean {
  return value === "" || value === 0 || value === false || (value !== null && typeof value === "object" && Object.keys(value).length === 0);
}

function has(message: object, name: string): boolean {
  return Object.hasOwn(message, name);
}

function formatSeconds(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** The entry type of a protobuf map field (declared as repeated key/value entries), if it is one. */
function mapEntryType(field: protobuf.Field): protobuf.Type | undefined {
  const type = field.resolvedType;
  if (!field.repeated || type === null || !("fieldsArray" in type)) return undefined;
  return type.name.endsWith(MAP_ENTRY_SUFFIX) && type.fields["key"] !== undefined && type.fields["value"] !== undefined ? type : undefined;
}

function entryValueField(entryType: protobuf.Type): protobuf.Field {
  return entryType.fields["value"] as protobuf.Field;
}

function scalarToJson(field: protobuf.Field, value: unknown): unknown {
  switch (field.type) {
    case "bytes":
      return Buffer.from(value as Uint8Array).toString("base64");
    case "int64":
    case "uint64":
    case "sint64":
    case "fixed64":
    case "sfixed64":
      return toExactInteger(value);
    default:
      return value;
  }
}

function valueToJson(field: protobuf.Field, value: unknown, rules: JsonFieldRules): unknown {
  const type = field.resolvedType;
  if (type === null || !("fieldsArray" in type)) return scalarToJson(field, value);
  return messageToJson(type, value as protobuf.Message, rules);
}

/** A map value: unset on the wire is the value type's zero value. */
function entryValueToJson(valueField: protobuf.Field, entry: { value?: unknown }, rules: JsonFieldRules): unknown {
  if (entry.value !== undefined && entry.value !== null) return valueToJson(valueField, entry.value, rules) ?? null;
  if (valueField.type === "bytes" || valueField.type === "string") return "";
  return (
    valueToJson(
      valueField,
      valueField.resolvedType !== null && "fieldsArray" in valueField.resolvedType ? {} : valueField.defaultValue,
      rules,
    ) ?? null
  );
}

/** A decoded message as JSON; `undefined` for an unset `Time`/`MicroTime` (Go's zero time). */
export function messageToJson(type: protobuf.Type, message: protobuf.Message, rules: JsonFieldRules): unknown {
  const name = fullName(type);
  const record = message as unknown as Plain;
  if (name === TIME_TYPE || name === MICRO_TIME_TYPE) {
    if (!has(record, "seconds") && !has(record, "nanos")) return undefined;
    const seconds = toNumber(record["seconds"] ?? 0);
    if (name === TIME_TYPE) return formatSeconds(seconds);
    return formatMicroTime(seconds, Math.floor(toNumber(record["nanos"] ?? 0) / 1000));
  }
  if (STRING_LIST_TYPES.has(name)) return [...((record["items"] ?? []) as string[])];
  if (name === QUANTITY_TYPE) return record["string"] ?? "";
  // IntOrString: type 1 is the string form; otherwise the int.
  if (name === INT_OR_STRING_TYPE) return toNumber(record["type"] ?? 0) === 1 ? (record["strVal"] ?? "") : toNumber(record["intVal"] ?? 0);
  if (name === FIELDS_V1_TYPE) {
    const raw = record["Raw"];
    return raw instanceof Uint8Array && raw.length > 0 ? (JSON.parse(Buffer.from(raw).toString("utf8")) as unknown) : {};
  }
  if (name === RAW_EXTENSION_TYPE) {
    const raw = record["raw"];
    // Go's RawExtension marshals empty bytes as JSON null.
    return raw instanceof Uint8Array && raw.length > 0 ? (JSON.parse(Buffer.from(raw).toString("utf8")) as unknown) : null;
  }
  const out: Plain = {};
  for (const field of type.fieldsArray) {
    const key = fieldKey(type, field);
    const value = record[field.name];
    const entryType = mapEntryType(field);
    if (entryType) {
      const entries = (value ?? []) as Array<{ key?: string; value?: unknown }>;
      const valueField = entryValueField(entryType);
      // Later entries win, as in protobuf map decoding; fromEntries keeps every key (even `__proto__`) an own property.
      if (entries.length > 0)
        out[field.name] = Object.fromEntries(entries.map((entry) => [entry.key ?? "", entryValueToJson(valueField, entry, rules)]));
      continue;
    }
    if (field.repeated) {
      const items = (value ?? []) as unknown[];
      if (items.length > 0) out[field.name] = items.map((item) => valueToJson(field, item, rules) ?? null);
      continue;
    }
    if (!has(record, field.name)) {
      if (rules.alwaysPresent.has(key)) out[field.name] = alwaysPresentZero(field);
      continue;
    }
    const converted = valueToJson(field, value, rules);
    if (converted === undefined) continue;
    if (rules.inline.has(key)) {
      Object.assign(out, converted);
      continue;
    }
    if (isZero(converted) && !rules.keepZero.has(key) && !rules.alwaysPresent.has(key)) continue;
    out[field.name] = converted;
  }
  return out;
}

/** The JSON zero value Go writes for an unset field without `omitempty`. */
function alwaysPresentZero(field: protobuf.Field): unknown {
  if (field.type === "bool") return false;
  if (field.type === "string") return "";
  return 0;
}

function parseTime(value: unknown): { seconds: number; nanos: number } | undefined {
  if (typeof value !== "string" || value === "") return undefined;
  const match = /\.(\d+)/.exec(value);
  const millis = Date.parse(value);
  if (Number.isNaN(millis)) throw new TypeError(`invalid timestamp ${JSON.stringify(value)}`);
  const seconds = Math.floor(millis / 1000);
  const nanos = match ? Number((match[1] ?? "").padEnd(9, "0").slice(0, 9)) : 0;
  return { seconds, nanos };
}

function jsonToValue(field: protobuf.Field, value: unknown, rules: JsonFieldRules): unknown {
  const type = field.resolvedType;
  if (type !== null && "fieldsArray" in type) return jsonToMessage(type, value, rules);
  if (field.type === "bytes") return typeof value === "string" ? Buffer.from(value, "base64") : value;
  // protobufjs reads an int64 exactly from its decimal string (it has no bigint input).
  if (typeof value === "bigint") return value.toString();
  return value;
}

/** The plain object `Type.fromObject` accepts for a JSON value; unknown JSON fields are dropped. */
export function jsonToMessage(type: protobuf.Type, json: unknown, rules: JsonFieldRules): Plain | undefined {
  const name = fullName(type);
  if (name === TIME_TYPE || name === MICRO_TIME_TYPE) {
    const time = parseTime(json);
    if (time === undefined) return undefined;
    // Time keeps whole seconds on the wire, as Go does; MicroTime keeps the fraction.
    return name === TIME_TYPE ? { seconds: time.seconds } : { seconds: time.seconds, nanos: Math.floor(time.nanos / 1000) * 1000 };
  }
  if (STRING_LIST_TYPES.has(name)) return { items: Array.isArray(json) ? json : [] };
  if (name === QUANTITY_TYPE) return { string: typeof json === "number" ? String(json) : json };
  if (name === INT_OR_STRING_TYPE) return typeof json === "string" ? { type: 1, strVal: json } : { type: 0, intVal: json };
  if (name === FIELDS_V1_TYPE) return { Raw: Buffer.from(JSON.stringify(json ?? {}), "utf8") };
  if (name === RAW_EXTENSION_TYPE) return { raw: Buffer.from(JSON.stringify(json), "utf8") };
  if (json === null || typeof json !== "object") return {};
  const source = json as Plain;
  const out: Plain = {};
  for (const field of type.fieldsArray) {
    // An inline struct takes its fields from the parent's JSON.
    const value = rules.inline.has(fieldKey(type, field)) ? source : source[field.name];
    if (value === undefined || value === null) continue;
    const entryType = mapEntryType(field);
    if (entryType) {
      const valueField = entryValueField(entryType);
      // Go writes map entries in key order.
      out[field.name] = Object.entries(value as Plain)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => ({ key: k, value: v === null ? undefined : jsonToValue(valueField, v, rules) }));
    } else if (field.repeated) {
      out[field.name] = (value as unknown[]).map((item) => jsonToValue(field, item, rules));
    } else {
      const converted = jsonToValue(field, value, rules);
      if (converted !== undefined) out[field.name] = converted;
    }
  }
  return out;
}
