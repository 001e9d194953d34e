import type { JSONSchemaProps } from "../../schema/types.js";
import type { FieldError } from "../../validation/field-errors.js";
import { fieldInvalid, fieldNotSupported, fieldRequired, fieldTooLong, fieldTooMany } from "../../validation/field-errors.js";
import { formatCheck } from "./formats.js";
import { compileRegexp, regexpError } from "../../regex/index.js";
import { declaredProperty } from "../../schema/declared-property.js";

/**
 * OpenAPI v3 value validation with the semantics and messages of kube-openapi's
 * `pkg/validation/validate` (go-openapi's validator as Kubernetes vendors it), and the mapping of
 * its errors to field errors of apiextensions-apiserver's `ValidateCustomResource`: type errors are
 * `Invalid value: "string": spec.replicas in body must be of type integer: "string"`, a missing
 * property is `Required value`, an enum miss is `Unsupported value`, and so on.
 *
 * A general JSON-schema library does not fit: go-openapi reports type mismatches with the JSON
 * type it saw, picks the "best" failing branch of anyOf/oneOf by how far validation got, quotes
 * Go's formatting of bounds, and compiles patterns as RE2. Patterns here run on the server's one
 * RE2 engine (`regex/`).
 */

type Code =
  | "InvalidType"
  | "Required"
  | "TooLong"
  | "TooShort"
  | "Pattern"
  | "Enum"
  | "MultipleOf"
  | "Max"
  | "Min"
  | "Unique"
  | "MaxItems"
  | "MinItems"
  | "TooFewProperties"
  | "TooManyProperties"
  | "UnallowedProperty"
  | "MultipleOfMustBePositive";

/** A go-openapi error: a `Validation` with a code and name, or (no code) a plain error reported at the root. */
interface OpenAPIError {
  code?: Code;
  name: string;
  value?: unknown;
  valid?: number;
  values?: unknown[];
  message: string;
}

/** go-openapi's `Result`: errors plus how much validation ran, which picks the best failing alternative. */
interface Result {
  errors: OpenAPIError[];
  matchCount: number;
}

const IN = "body";

function newResult(): Result {
  return { errors: [], matchCount: 0 };
}

function merge(into: Result, from: Result | undefined): void {
  if (from === undefined) return;
  into.errors.push(...from.errors);
  into.matchCount += from.matchCount;
}

/** The JSON type of a decoded value, and the Go format go-openapi infers for numbers. */
/** go-openapi's maxJSONFloat: the largest float64 every integer up to which is exact. */
const MAX_JSON_FLOAT = 2 ** 53;

function schemaInfo(data: unknown): { type: string; format: string } {
  if (typeof data === "boolean") return { type: "boolean", format: "" };
  if (typeof data === "string") return { type: "string", format: "" };
  if (typeof data === "bigint") return { type: "integer", format: "int64" };
  // A decoded integer beyond 2^53 that fits int64 is a bigint; a number JSON.parse could not hold
  // exactly (1e20, 2^63) is what Go decodes as float64.
  if (typeof data === "number")
    return Number.isSafeInteger(data) ? { type: "integer", format: "int64" } : { type: "number", format: "float64" };
  if (Array.isArray(data)) return { type: "array", format: "" };
  return { type: "object", format: "" };
}

/** Go's `%v` of a float64 or int64 bound (two-digit exponents). */
function goNumber(n: number): string {
  const text = String(n);
  const m = /^(-?[\d.]+)e([+-])(\d+)$/.exec(text);
  return m === null ? text : `${m[1] ?? ""}e${m[2] ?? ""}${(m[3] ?? "").padStart(2, "0")}`;
}

function invalidType(name: string, typeName: string, value: unknown): OpenAPIError {
  const message =
    typeof value === "string"
      ? `${name} in ${IN} must be of type ${typeName}: ${JSON.stringify(value)}`
      : `${name} in ${IN} must be of type ${typeName}`;
  return { code: "InvalidType", name, value, message };
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bs = b as unknown[];
    return a.length === bs.length && a.every((v, i) => deepEqual(v, bs[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = Object.keys(ao);
  return keys.length === Object.keys(bo).length && keys.every((k) => Object.hasOwn(bo, k) && deepEqual(ao[k], bo[k]));
}

function isObject(data: unknown): data is Record<string, unknown> {
  return typeof data === "object" && data !== null && !Array.isArray(data);
}

function childName(path: string, key: string): string {
  return `${path}.${key}`;
}

/** `SchemaValidator.Validate`: the validators run in go-openapi's order, each where it applies. */
function validateSchema(schema: JSONSchemaProps, data: unknown, path: string): Result {
  const result = newResult();
  const format = formatCheck(schema.format) !== undefined ? (schema.format ?? "") : "";
  const types = typesOf(schema);
  if (data === null || data === undefined) {
    if (types.length > 0 || format !== "") merge(result, typeValidator(schema, types, format, null, path));
    merge(result, enumValidator(schema, null, path));
    return result;
  }
  const step = (r: Result | undefined) => {
    merge(result, r);
    result.matchCount++;
  };
  if (types.length > 0 || format !== "") step(typeValidator(schema, types, format, data, path));
  step(junctorValidator(schema, data, path));
  if (typeof data === "string") {
    step(stringValidator(schema, data, path));
    const check = formatCheck(schema.format);
    if (check !== undefined && !check(data)) step({ errors: [invalidType(path, schema.format ?? "", data)], matchCount: 0 });
    else if (check !== undefined) step(undefined);
  }
  if (typeof data === "number" || typeof data === "bigint") step(numberValidator(schema, data, path));
  if (Array.isArray(data)) step(sliceValidator(schema, data, path));
  step(enumValidator(schema, data, path));
  if (isObject(data)) step(objectValidator(schema, data, path));
  result.matchCount++;
  return result;
}

/**
 * The schema's types as kube's converter hands them to go-openapi: `x-kubernetes-int-or-string`
 * becomes `[integer, string]`, reported as `integer,string`.
 */
function typesOf(schema: JSONSchemaProps): string[] {
  if (schema["x-kubernetes-int-or-string"] === true) return ["integer", "string"];
  const type: string = typeof schema.type === "string" ? schema.type : "";
  return type !== "" ? [type] : [];
}

function typeValidator(schema: JSONSchemaProps, types: string[], format: string, data: unknown, path: string): Result {
  const result: Result = { errors: [], matchCount: 1 };
  const typeName = types.join(",");
  if (data === null) {
    if (types.length > 0 && !types.includes("null") && schema.nullable !== true)
      return { errors: [invalidType(path, typeName, "null")], matchCount: 0 };
    return result;
  }
  const info = schemaInfo(data);
  const isString = typeof data === "string";
  const isSlice = Array.isArray(data);
  // go-openapi's IsFloat64AJSONInteger: a whole float64 within ±2^53.
  const isFloatInt =
    info.type === "number" && Number.isInteger(data) && Math.abs(data as number) <= MAX_JSON_FLOAT && types.includes("integer");
  const isIntFloat = info.type === "integer" && types.includes("number");
  if (!isString && !isSlice && format !== "" && !(types.includes(info.type) || info.format === format || isFloatInt || isIntFloat)) {
    return { errors: [invalidType(path, format, info.format)], matchCount: 0 };
  }
  if (!types.includes("number") && !types.includes("integer") && format !== "" && (isString || isSlice)) return result;
  if (!(types.includes(info.type) || isFloatInt || isIntFloat)) return { errors: [invalidType(path, typeName, info.type)], matchCount: 0 };
  return result;
}

function enumValidator(schema: JSONSchemaProps, data: unknown, path: string): Result | undefined {
  const values = schema.enum;
  if (values === undefined || values === null || values.length === 0) return undefined;
  if (data !== null && values.some((v) => v !== null && deepEqual(v, data))) return undefined;
  return {
    errors: [
      { code: "Enum", name: path, value: data, values, message: `${path} in ${IN} should be one of [${values.map(String).join(" ")}]` },
    ],
    matchCount: 0,
  };
}

function stringValidator(schema: JSONSchemaProps, data: string, path: string): Result | undefined {
  const length = [...data].length;
  if (typeof schema.maxLength === "number" && length > schema.maxLength) {
    return {
      errors: [
        {
          code: "TooLong",
          name: path,
          value: data,
          valid: schema.maxLength,
          message: `${path} in ${IN} should be at most ${schema.maxLength} chars long`,
        },
      ],
      matchCount: 0,
    };
  }
  if (typeof schema.minLength === "number" && length < schema.minLength) {
    return {
      errors: [
        {
          code: "TooShort",
          name: path,
          value: data,
          valid: schema.minLength,
          message: `${path} in ${IN} should be at least ${schema.minLength} chars long`,
        },
      ],
      matchCount: 0,
    };
  }
  if (typeof schema.pattern === "string" && schema.pattern !== "") {
    // Patterns are Go regular expressions, unanchored like Go's `MatchString`.
    const problem = regexpError(schema.pattern);
    if (problem !== undefined) {
      return {
        errors: [
          {
            code: "Pattern",
            name: path,
            value: data,
            message: `${path} in ${IN} should match '${schema.pattern}, but pattern is invalid: ${problem}'`,
          },
        ],
        matchCount: 0,
      };
    }
    if (!compileRegexp(schema.pattern).test(data)) {
      return {
        errors: [{ code: "Pattern", name: path, value: data, message: `${path} in ${IN} should match '${schema.pattern}'` }],
        matchCount: 0,
      };
    }
  }
  return undefined;
}

/**
 * `numberValidator` as Kubernetes has run it: bounds apply in integers to integral data (the bound
 * truncated, as Go converts it) and in floats otherwise. Numeric formats do not constrain values:
 * kube strips them from custom resource schemas. An int64 beyond 2^53 (a bigint here) is compared
 * exactly, as go-openapi compares int64s; the schema's bounds are float64s in Go, so one written
 * with more digits than a double holds counts as that double.
 */
function numberValidator(schema: JSONSchemaProps, data: number | bigint, path: string): Result {
  const result: Result = { errors: [], matchCount: 1 };
  const isInt = typeof data === "bigint" || Number.isInteger(data);
  const fail = (code: Code, message: string): OpenAPIError => ({ code, name: path, value: data, message });
  const multipleOf = asFloat64(schema.multipleOf);
  if (multipleOf !== undefined) {
    const factor = isInt ? Math.trunc(multipleOf) : multipleOf;
    if (factor <= 0) {
      result.errors.push({
        code: "MultipleOfMustBePositive",
        name: path,
        value: factor,
        message: `factor MultipleOf declared for ${path} must be positive: ${goNumber(factor)}`,
      });
    } else {
      const ok =
        typeof data === "bigint"
          ? data % BigInt(factor) === 0n
          : isInt
            ? data % factor === 0
            : Number.isInteger(factor < 1 ? (1 / factor) * data : data / factor);
      if (!ok) result.errors.push(fail("MultipleOf", `${path} in ${IN} should be a multiple of ${goNumber(factor)}`));
    }
  }
  const bound = (given: unknown, exclusive: boolean | undefined, isMax: boolean): void => {
    const limit = asFloat64(given);
    if (limit === undefined) return;
    const l = isInt ? Math.trunc(limit) : limit;
    const excl = exclusive === true;
    // An int64 beyond 2^53 against the bound as an int64; everything else as doubles.
    const against = typeof data === "bigint" ? BigInt(l) : l;
    const broken = isMax ? (excl ? data >= against : data > against) : excl ? data <= against : data < against;
    if (!broken) return;
    const relation = isMax ? (excl ? "less than" : "less than or equal to") : excl ? "greater than" : "greater than or equal to";
    const shown = typeof data === "bigint" ? against.toString() : goNumber(l);
    result.errors.push(fail(isMax ? "Max" : "Min", `${path} in ${IN} should be ${relation} ${shown}`));
  };
  bound(schema.minimum, schema.exclusiveMinimum, false);
  bound(schema.maximum, schema.exclusiveMaximum, true);
  return result;
}

/** A schema number as Go's float64 field holds it; an exact integer (bigint) rounds as Go's decoder rounds it. */
function asFloat64(value: unknown): number | undefined {
  if (typeof value === "number") return value;
  if (typeof value === "bigint") return Number(value);
  return undefined;
}

function sliceValidator(schema: JSONSchemaProps, data: unknown[], path: string): Result {
  const result = newResult();
  const items = schema.items;
  if (items !== undefined && items !== null && !Array.isArray(items)) {
    data.forEach((item, i) => merge(result, validateSchema(items, item, `${path}[${i}]`)));
  } else if (Array.isArray(items)) {
    (items as JSONSchemaProps[]).forEach((itemSchema, i) => {
      if (i < data.length) merge(result, validateSchema(itemSchema, data[i], `${path}[${i}]`));
    });
  }
  const size = data.length;
  if (typeof schema.minItems === "number" && size < schema.minItems) {
    result.errors.push({
      code: "MinItems",
      name: path,
      value: size,
      valid: schema.minItems,
      message: `${path} in ${IN} should have at least ${schema.minItems} items`,
    });
  }
  if (typeof schema.maxItems === "number" && size > schema.maxItems) {
    result.errors.push({
      code: "MaxItems",
      name: path,
      value: size,
      valid: schema.maxItems,
      message: `${path} in ${IN} should have at most ${schema.maxItems} items`,
    });
  }
  if (schema.uniqueItems === true && data.some((v, i) => data.slice(0, i).some((u) => deepEqual(u, v)))) {
    result.errors.push({ code: "Unique", name: path, message: `${path} in ${IN} shouldn't contain duplicates` });
  }
  result.matchCount++;
  return result;
}

function objectValidator(schema: JSONSchemaProps, data: Record<string, unknown>, path: string): Result {
  const result = newResult();
  const keys = Object.keys(data);
  const properties = schema.properties ?? {};
  if (typeof schema.minProperties === "number" && keys.length < schema.minProperties) {
    result.errors.push({
      code: "TooFewProperties",
      name: path,
      value: keys.length,
      valid: schema.minProperties,
      message: `${path} in ${IN} should have at least ${schema.minProperties} properties`,
    });
  }
  if (typeof schema.maxProperties === "number" && keys.length > schema.maxProperties) {
    result.errors.push({
      code: "TooManyProperties",
      name: path,
      value: keys.length,
      valid: schema.maxProperties,
      message: `${path} in ${IN} should have at most ${schema.maxProperties} properties`,
    });
  }
  const additional = schema.additionalProperties;
  if (additional === false) {
    for (const key of keys) {
      if (declaredProperty(schema, key) === undefined)
        result.errors.push({
          code: "UnallowedProperty",
          name: path,
          value: key,
          message: `${path}.${key} in ${IN} is a forbidden property`,
        });
    }
  } else if (isObject(additional)) {
    for (const key of keys) {
      if (declaredProperty(schema, key) === undefined) merge(result, validateSchema(additional, data[key], childName(path, key)));
    }
  }
  for (const [name, property] of Object.entries(properties)) {
    if (Object.hasOwn(data, name)) merge(result, validateSchema(property, data[name], path === "" ? name : childName(path, name)));
  }
  for (const name of schema.required ?? []) {
    if (!Object.hasOwn(data, name))
      result.errors.push({ code: "Required", name: childName(path, name), message: `${childName(path, name)} in ${IN} is required` });
  }
  return result;
}

/** allOf/anyOf/oneOf/not, reported like go-openapi's `schemaPropsValidator`. */
function junctorValidator(schema: JSONSchemaProps, data: unknown, path: string): Result {
  const result = newResult();
  const quoted = JSON.stringify(path);
  const anyOf = schema.anyOf ?? [];
  if (anyOf.length > 0) {
    let best: Result | undefined;
    let firstSuccess: Result | undefined;
    for (const branch of anyOf) {
      const r = validateSchema(branch, data, path);
      if (r.errors.length === 0) {
        firstSuccess = r;
        best = undefined;
        break;
      }
      if (best === undefined || r.matchCount > best.matchCount) best = r;
    }
    if (firstSuccess === undefined) result.errors.push({ name: "", message: `${quoted} must validate at least one schema (anyOf)` });
    merge(result, best ?? firstSuccess);
  }
  const oneOf = schema.oneOf ?? [];
  if (oneOf.length > 0) {
    let best: Result | undefined;
    let firstSuccess: Result | undefined;
    let validated = 0;
    for (const branch of oneOf) {
      const r = validateSchema(branch, data, path);
      if (r.errors.length === 0) {
        validated++;
        best = undefined;
        firstSuccess ??= r;
        continue;
      }
      if (validated === 0 && (best === undefined || r.matchCount > best.matchCount)) best = r;
    }
    if (validated !== 1) {
      const detail = validated === 0 ? "Found none valid" : `Found ${validated} valid alternatives`;
      result.errors.push({ name: "", message: `${quoted} must validate one and only one schema (oneOf). ${detail}` });
      merge(result, best);
    } else {
      merge(result, firstSuccess);
    }
  }
  const allOf = schema.allOf ?? [];
  if (allOf.length > 0) {
    let validated = 0;
    for (const branch of allOf) {
      const r = validateSchema(branch, data, path);
      if (r.errors.length === 0) validated++;
      merge(result, r);
    }
    if (validated !== allOf.length)
      result.errors.push({
        name: "",
        message: `${quoted} must validate all the schemas (allOf)${validated === 0 ? ". None validated" : ""}`,
      });
  }
  if (schema.not !== undefined && schema.not !== null && validateSchema(schema.not, data, path).errors.length === 0) {
    result.errors.push({ name: "", message: `${quoted} must not validate the schema (not)` });
  }
  result.matchCount++;
  return result;
}

/** The path Go prints for the nil root path: errors not tied to a field are reported there. */
export const ROOT_FIELD = "<nil>";

/** apiextensions-apiserver's mapping of one go-openapi error to a field error, under `prefix` (Go's `fldPath`). */
function toFieldError(error: OpenAPIError, prefix: string): FieldError {
  if (error.code === undefined) return fieldInvalid(prefix === "" ? ROOT_FIELD : prefix, "", error.message);
  const name = error.name.replace(/^\./, "");
  const field = prefix === "" ? name : name === "" ? prefix : `${prefix}.${name}`;
  const value = error.value ?? "";
  switch (error.code) {
    case "Required":
      return fieldRequired(field);
    case "Enum":
      return fieldNotSupported(
        field,
        error.value ?? null,
        (error.values ?? []).map((v) => (typeof v === "string" ? v : JSON.stringify(v))),
      );
    case "TooLong":
      return fieldTooLong(field, value, error.valid ?? -1);
    case "MaxItems":
    case "TooManyProperties":
      return fieldTooMany(field, typeof error.value === "number" ? error.value : -1, error.valid ?? -1);
    case "InvalidType":
      return { type: "FieldValueTypeInvalid", field, value, detail: error.message };
    default:
      return fieldInvalid(field, value, error.message);
  }
}

/** Validates `data` against `schema`; field paths are rooted at `prefix` (a whole object: the empty path). */
export function validateOpenAPI(schema: JSONSchemaProps, data: unknown, prefix = ""): FieldError[] {
  return validateSchema(schema, data, "").errors.map((error) => toFieldError(error, prefix));
}
