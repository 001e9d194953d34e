/**
 * Constructors and formatting for `FieldError`s, after apimachinery's `util/validation/field`.
 * The formatted body is what a 422's `details.causes[].message` carries, and
 * `<field>: <body>` is what its `message` lists.
 */

/** One field-level validation failure, reported as a `StatusCause` of a 422 Invalid. */
export interface FieldError {
  type:
    | "FieldValueRequired"
    | "FieldValueInvalid"
    | "FieldValueDuplicate"
    | "FieldValueForbidden"
    | "FieldValueNotSupported"
    | "FieldValueTooLong"
    | "FieldValueTooMany"
    | "FieldValueTypeInvalid";
  /** JSON path in Go field-path notation, e.g. `metadata.name`, `data[foo bar]`, `spec.containers[0].name`. */
  field: string;
  /** The human-readable rule, e.g. `a valid config key must consist of alphanumeric characters, '-', '_' or '.'`. */
  detail: string;
  /** The offending value, quoted into the message like apimachinery does. */
  value?: unknown;
}

/** Field paths in Go notation: `child("metadata", "name")` → `metadata.name`. */
export function childPath(parent: string, ...names: string[]): string {
  return [parent, ...names].filter((p) => p !== "").join(".");
}
/** `data[foo bar]` — a map key. */
export function keyPath(parent: string, key: string): string {
  return `${parent}[${key}]`;
}
/** `spec.items[0]` — a list index. */
export function indexPath(parent: string, index: number): string {
  return `${parent}[${index}]`;
}

export function fieldInvalid(field: string, value: unknown, detail: string): FieldError {
  return { type: "FieldValueInvalid", field, value, detail };
}
export function fieldRequired(field: string, detail = ""): FieldError {
  return { type: "FieldValueRequired", field, detail };
}
export function fieldForbidden(field: string, detail: string): FieldError {
  return { type: "FieldValueForbidden", field, detail };
}
export function fieldDuplicate(field: string, value: unknown): FieldError {
  return { type: "FieldValueDuplicate", field, value, detail: "" };
}
export function fieldNotSupported(field: string, value: unknown, validValues: string[]): FieldError {
  const detail = validValues.length > 0 ? `supported values: ${validValues.map((v) => JSON.stringify(v)).join(", ")}` : "";
  return { type: "FieldValueNotSupported", field, value, detail };
}
/** `Too long: may not be more than 262144 bytes`. */
export function fieldTooLong(field: string, value: unknown, maxLength: number): FieldError {
  const detail = maxLength >= 0 ? `may not be more than ${maxLength} ${maxLength === 1 ? "byte" : "bytes"}` : "value is too long";
  return { type: "FieldValueTooLong", field, value, detail };
}
export function fieldTooMany(field: string, actual: number, max: number): FieldError {
  const detail = max >= 0 ? `must have at most ${max} items` : "has too many items";
  return { type: "FieldValueTooMany", field, value: actual, detail };
}

const TYPE_TEXT: Record<FieldError["type"], string> = {
  FieldValueRequired: "Required value",
  FieldValueInvalid: "Invalid value",
  FieldValueDuplicate: "Duplicate value",
  FieldValueForbidden: "Forbidden",
  FieldValueNotSupported: "Unsupported value",
  FieldValueTooLong: "Too long",
  FieldValueTooMany: "Too many",
  FieldValueTypeInvalid: "Invalid value",
};

/** Types whose body never shows the value (apimachinery's `ErrorBody`). */
const VALUELESS = new Set<FieldError["type"]>(["FieldValueRequired", "FieldValueForbidden", "FieldValueTooLong"]);

function formatValue(value: unknown): string {
  if (value === undefined || value === null) return "null";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  return JSON.stringify(value);
}

/** `Invalid value: "Foo": a lowercase RFC 1123 …` — the cause message. */
export function fieldErrorBody(error: FieldError): string {
  let body = TYPE_TEXT[error.type];
  if (!VALUELESS.has(error.type)) body += `: ${formatValue(error.value)}`;
  if (error.detail.length > 0) body += `: ${error.detail}`;
  return body;
}

/** `metadata.name: Invalid value: "Foo": …`. */
export function formatFieldError(error: FieldError): string {
  return `${error.field}: ${fieldErrorBody(error)}`;
}
