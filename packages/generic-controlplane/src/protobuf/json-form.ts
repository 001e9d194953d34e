import type protobuf from "protobufjs";
import { formatMicroTime } from "../resources/wire-values.js";
import { ALWAYS_PRESENT_FIELDS, BYTES_ENTRY_TYPE, FIELDS_V1_TYPE, KEEP_ZERO_FIELDS, MICRO_TIME_TYPE, STRING_ENTRY_TYPE, TIME_TYPE, fieldKey } from "./message-types.js";

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
  if (value !== null && typeof value === "object" && "toNumber" in value && typeof value.toNumber === "function") return (value as { toNumber(): number }).toNumber();
  return Number(value);
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

/** Whether a repeated field is a protobuf map (declared as its key/value entries). */
function isMapField(field: protobuf.Field): boolean {
  const type = field.resolvedType;
  if (type === null || !("fieldsArray" in type)) return false;
  const name = fullName(type);
  return name === STRING_ENTRY_TYPE || name === BYTES_ENTRY_TYPE;
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
      return toNumber(value);
    default:
      return value;
  }
}

function valueToJson(field: protobuf.Field, value: unknown): unknown {
  const type = field.resolvedType;
  if (type === null || !("fieldsArray" in type)) return scalarToJson(field, value);
  return messageToJson(type, value as protobuf.Message);
}

/** A decoded message as JSON; `undefined` for an unset `Time`/`MicroTime` (Go's zero time). */
export function messageToJson(type: protobuf.Type, message: protobuf.Message): unknown {
  const name = fullName(type);
  const record = message as unknown as Plain;
  if (name === TIME_TYPE || name === MICRO_TIME_TYPE) {
    if (!has(record, "seconds") && !has(record, "nanos")) return undefined;
    const seconds = toNumber(record["seconds"] ?? 0);
    if (name === TIME_TYPE) return formatSeconds(seconds);
    return formatMicroTime(seconds, Math.floor(toNumber(record["nanos"] ?? 0) / 1000));
  }
  if (name === FIELDS_V1_TYPE) {
    const raw = record["Raw"];
    return raw instanceof Uint8Array && raw.length > 0 ? (JSON.parse(Buffer.from(raw).toString("utf8")) as unknown) : {};
  }
  const out: Plain = {};
  for (const field of type.fieldsArray) {
    const key = fieldKey(type, field);
    const value = record[field.name];
    if (isMapField(field)) {
      const entries = (value ?? []) as Array<{ key?: string; value?: unknown }>;
      if (entries.length > 0) {
        const bytes = fullName(field.resolvedType as protobuf.Type) === BYTES_ENTRY_TYPE;
        // Later entries win, as in protobuf map decoding; fromEntries keeps every key an own property.
        out[field.name] = Object.fromEntries(
          entries.map((entry) => [entry.key ?? "", bytes ? Buffer.from(entry.value instanceof Uint8Array ? entry.value : new Uint8Array()).toString("base64") : (entry.value ?? "")]),
        );
      }
      continue;
    }
    if (field.repeated) {
      const items = (value ?? []) as unknown[];
      if (items.length > 0) out[field.name] = items.map((item) => valueToJson(field, item) ?? null);
      continue;
    }
    if (!has(record, field.name)) {
      if (ALWAYS_PRESENT_FIELDS.has(key)) out[field.name] = field.type === "bool" ? false : "";
      continue;
    }
    const converted = valueToJson(field, value);
    if (converted === undefined) continue;
    if (isZero(converted) && !KEEP_ZERO_FIELDS.has(key) && !ALWAYS_PRESENT_FIELDS.has(key)) continue;
    out[field.name] = converted;
  }
  return out;
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

function jsonToValue(field: protobuf.Field, value: unknown): unknown {
  const type = field.resolvedType;
  if (type !== null && "fieldsArray" in type) return jsonToMessage(type, value);
  if (field.type === "bytes") return typeof value === "string" ? Buffer.from(value, "base64") : value;
  return value;
}

/** The plain object `Type.fromObject` accepts for a JSON value; unknown JSON fields are dropped. */
export function jsonToMessage(type: protobuf.Type, json: unknown): Plain | undefined {
  const name = fullName(type);
  if (name === TIME_TYPE || name === MICRO_TIME_TYPE) {
    const time = parseTime(json);
    if (time === undefined) return undefined;
    // Time keeps whole seconds on the wire, as Go does; MicroTime keeps the fraction.
    return name === TIME_TYPE ? { seconds: time.seconds } : { seconds: time.seconds, nanos: Math.floor(time.nanos / 1000) * 1000 };
  }
  if (name === FIELDS_V1_TYPE) return { Raw: Buffer.from(JSON.stringify(json ?? {}), "utf8") };
  if (json === null || typeof json !== "object") return {};
  const source = json as Plain;
  const out: Plain = {};
  for (const field of type.fieldsArray) {
    const value = source[field.name];
    if (value === undefined || value === null) continue;
    if (isMapField(field)) {
      const bytes = fullName(field.resolvedType as protobuf.Type) === BYTES_ENTRY_TYPE;
      // Go writes map entries in key order.
      out[field.name] = Object.entries(value as Plain)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => ({ key: k, value: bytes && typeof v === "string" ? Buffer.from(v, "base64") : v }));
    } else if (field.repeated) {
      out[field.name] = (value as unknown[]).map((item) => jsonToValue(field, item));
    } else {
      const converted = jsonToValue(field, value);
      if (converted !== undefined) out[field.name] = converted;
    }
  }
  return out;
}
