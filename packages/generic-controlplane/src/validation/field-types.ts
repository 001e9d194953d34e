import { INT64_MAX, INT64_MIN } from "../api/exact-json.js";
import { refName } from "../patch/meta-schemas.js";
import { resolveSchema, withObjectMeta, type Definitions } from "../patch/schema-walk.js";
import { setOwn } from "../patch/json-value.js";
import { goTypeOf } from "../schema/go-type.js";
import type { JSONSchemaProps } from "../schema/types.js";
import { base64ErrorOffset, goTimeError } from "./wire-values.js";
import { decodeError } from "./decode-errors.js";
import { declaredProperty } from "../schema/declared-property.js";

/**
 * What kube-apiserver gets from decoding a body into its Go struct, driven by the resource's
 * schema: every declared field must have its JSON type (`immutable: [1]` is Go's
 * `json: cannot unmarshal array into Go struct field ConfigMap.immutable of type bool`), integers
 * must fit their int32/int64, and `null` decodes as Go's zero value — a field set to null is
 * unset (so `labels: null` is no labels), a null map value or list item is `""`, `0`, `false` or
 * `{}`. Fields the schema does not declare are left to fieldValidation.
 *
 * Recursion follows the schema, never the data, so it is bounded by the schema's depth.
 */

/** The exact text of a number literal in the request body (for integers beyond 2^53), if known. */
export type NumberLiteral = (holder: object, key: string) => string | undefined;

export interface FieldTypeOptions {
  /** The Go struct of the root: the kind. */
  kind: string;
  definitions?: Definitions;
  numberLiteral?: NumberLiteral;
}

class TypeMismatch extends Error {}

const ANY_OBJECT: JSONSchemaProps = { type: "object", "x-kubernetes-preserve-unknown-fields": true };

/**
 * Where a value sits, as Go's decoder reports it: the innermost struct, and the field path from
 * the root as the path of the field's parent and its key. The path and the Go name of an inline
 * struct here are only spelled out when a message or a nested struct needs them.
 */
interface Place {
  struct: string;
  parent: string;
  key: string;
}

function fieldOf(place: Place): string {
  return place.parent === "" ? place.key : `${place.parent}.${place.key}`;
}

/** The Go name an inline struct at this place gets when its schema does not name one. */
function structNameOf(place: Place): string {
  return `${place.struct}${pascal(place.key)}`;
}

function typeName(given: JSONSchemaProps | undefined, resolved: JSONSchemaProps | undefined, place: Place): string {
  return goTypeName(given, resolved, structNameOf(place));
}

const INT_RANGE = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  int64: [INT64_MIN, INT64_MAX],
} as const;

/**
 * Checks and normalises `object` in place; returns Go's decode error message for the first
 * mistyped field, or undefined.
 */
export function fieldTypeError(
  object: Record<string, unknown>,
  schema: JSONSchemaProps | undefined,
  options: FieldTypeOptions,
): string | undefined {
  const root = withObjectMeta(schema ?? ANY_OBJECT);
  try {
    decodeStruct(object, root, options.kind, "", options);
    return undefined;
  } catch (error) {
    if (error instanceof TypeMismatch) return error.message;
    throw error;
  }
}

function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (typeof value === "boolean") return "bool";
  if (value === null) return "null";
  return typeof value;
}

function mismatch(value: unknown, place: Place, type: string, literal?: string): TypeMismatch {
  const what = (typeof value === "number" || typeof value === "bigint") && literal !== undefined ? `number ${literal}` : jsonKind(value);
  return new TypeMismatch(`json: cannot unmarshal ${what} into Go struct field ${place.struct}.${fieldOf(place)} of type ${type}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function pascal(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function referenceOf(schema: JSONSchemaProps): string | undefined {
  return schema.$ref ?? (schema.allOf?.length === 1 ? schema.allOf[0]?.$ref : undefined);
}

/** `io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta` → `v1.ObjectMeta`: Go's package-qualified type name. */
function refTypeName(reference: string): string {
  let name = refTypeNames.get(reference);
  if (name === undefined) {
    name = refName(reference).split(".").slice(-2).join(".");
    refTypeNames.set(reference, name);
  }
  return name;
}

/** Every struct field names its type: spelled once per reference (schemas hold a bounded set). */
const refTypeNames = new Map<string, string>();

/** The Go type of a (resolved) schema node, for messages. `structName` names an inline struct. */
function goTypeName(given: JSONSchemaProps | undefined, resolved: JSONSchemaProps | undefined, structName: string): string {
  const named = (given && goTypeOf(given)) ?? (resolved && goTypeOf(resolved));
  if (named !== undefined) return named;
  const reference = given && referenceOf(given);
  if (reference !== undefined) return refTypeName(reference);
  if (resolved === undefined) return "interface {}";
  switch (resolved.type) {
    case "string":
      return resolved.format === "byte" ? "[]uint8" : "string";
    case "integer":
      return resolved.format === "int32" ? "int32" : "int64";
    case "number":
      return "float64";
    case "boolean":
      return "bool";
    case "array":
      return `[]${goTypeName(resolved.items, resolveSchema(resolved.items), structName)}`;
    case "object":
      if (typeof resolved.additionalProperties === "object") {
        return `map[string]${goTypeName(resolved.additionalProperties, resolveSchema(resolved.additionalProperties), structName)}`;
      }
      return resolved.properties !== undefined ? `v1.${structName}` : "map[string]interface {}";
    default:
      return "interface {}";
  }
}

/** metav1.Time and MicroTime: strings in RFC 3339. */
function isTime(schema: JSONSchemaProps | undefined): boolean {
  return schema?.type === "string" && schema.format === "date-time";
}

/** A schema that says nothing about its shape (or keeps anything) accepts any JSON. */
function acceptsAnything(schema: JSONSchemaProps | undefined): boolean {
  if (schema === undefined) return true;
  if (schema.type === undefined && schema.properties === undefined && schema.additionalProperties === undefined) return true;
  return schema["x-kubernetes-preserve-unknown-fields"] === true && schema.properties === undefined && schema.type !== "array";
}

/** Go's zero value of a type, which is what a null map value or list item decodes to. */
function zeroValue(schema: JSONSchemaProps | undefined): unknown {
  switch (schema?.type) {
    case "string":
      return isTime(schema) ? null : "";
    case "integer":
    case "number":
      return 0;
    case "boolean":
      return false;
    case "object":
      return schema.properties !== undefined ? {} : null;
    default:
      return null;
  }
}

function decodeStruct(
  object: Record<string, unknown>,
  schema: JSONSchemaProps,
  struct: string,
  path: string,
  options: FieldTypeOptions,
): void {
  for (const key of Object.keys(object)) {
    const property = declaredProperty(schema, key);
    if (property === undefined) continue;
    const value = object[key];
    // undefined is how in-process callers leave a field out; JSON has no such value.
    if (value === null || value === undefined) {
      delete object[key];
      continue;
    }
    decodeValue(object, key, value, property, { struct, parent: path, key }, options);
  }
}

/** Decodes `holder[key]` (already known not to be null) against `given`. */
function decodeValue(holder: object, key: string, value: unknown, given: JSONSchemaProps, place: Place, options: FieldTypeOptions): void {
  let schema = resolveSchema(given, options.definitions);
  if (acceptsAnything(schema) || schema === undefined) return;
  if (schema["x-kubernetes-int-or-string"] === true) {
    if (typeof value !== "string" && !(typeof value === "number" && Number.isInteger(value)))
      throw mismatch(value, place, "intstr.IntOrString");
    return;
  }
  // The Go type name is only spelled out when needed (an error, a struct): most values are fine.
  if (isTime(schema)) {
    // metav1.Time and MicroTime unmarshal themselves: from a string, through time.Parse.
    if (typeof value !== "string") throw mismatch(value, place, "string");
    const error = goTimeError(value, typeName(given, schema, place).endsWith("MicroTime"));
    if (error !== undefined) throw new TypeMismatch(error);
    return;
  }
  switch (schema.type) {
    case "string": {
      if (typeof value !== "string") throw mismatch(value, place, typeName(given, schema, place));
      // A []byte field decodes its string as standard base64.
      const offset = schema.format === "byte" ? base64ErrorOffset(value) : undefined;
      if (offset !== undefined) throw new TypeMismatch(`illegal base64 data at input byte ${offset}`);
      return;
    }
    case "boolean":
      if (typeof value !== "boolean") throw mismatch(value, place, typeName(given, schema, place));
      return;
    case "number":
      if (typeof value !== "number") throw mismatch(value, place, typeName(given, schema, place));
      return;
    case "integer":
      checkInteger(holder, key, value, place, schema.format === "int32" ? "int32" : "int64", given, schema, options);
      return;
    case "array": {
      if (!Array.isArray(value)) throw mismatch(value, place, typeName(given, schema, place));
      const items = schema.items;
      if (items === undefined) return;
      const resolvedItems = resolveSchema(items, options.definitions);
      value.forEach((item, index) => {
        if (item === null || item === undefined) value[index] = zeroValue(resolvedItems);
        else decodeValue(value, String(index), item, items, place, options);
      });
      return;
    }
    case "object":
    default: {
      if (!isRecord(value)) throw mismatch(value, place, typeName(given, schema, place));
      if (schema.properties !== undefined) {
        if (schema["x-kubernetes-embedded-resource"] === true) schema = withObjectMeta(schema);
        const structType = typeName(given, schema, place);
        decodeStruct(value, schema, structType.slice(structType.lastIndexOf(".") + 1), fieldOf(place), options);
        return;
      }
      const values = schema.additionalProperties;
      if (typeof values !== "object") return;
      const resolvedValues = resolveSchema(values, options.definitions);
      for (const entry of Object.keys(value)) {
        const item = value[entry];
        if (item === null || item === undefined) setOwn(value, entry, zeroValue(resolvedValues));
        else decodeValue(value, entry, item, values, place, options);
      }
    }
  }
}

function checkInteger(
  holder: object,
  key: string,
  value: unknown,
  place: Place,
  bits: "int32" | "int64",
  given: JSONSchemaProps,
  schema: JSONSchemaProps,
  options: FieldTypeOptions,
): void {
  const [min, max] = INT_RANGE[bits];
  // A bigint is an integer literal the decoder kept exactly (it fits int64).
  if (typeof value === "bigint") {
    if (value < min || value > max) throw mismatch(value, place, typeName(given, schema, place), value.toString());
    return;
  }
  if (typeof value !== "number") throw mismatch(value, place, typeName(given, schema, place));
  const literal = options.numberLiteral?.(holder, key);
  if (literal !== undefined && /^-?(0|[1-9]\d*)$/.test(literal)) {
    const exact = BigInt(literal);
    if (exact < min || exact > max) throw mismatch(value, place, typeName(given, schema, place), literal);
    return;
  }
  if (!Number.isInteger(value) || value < Number(min) || value >= Number(max) + 1) {
    throw mismatch(
      value,
      place,
      typeName(given, schema, place),
      literal ?? (Number.isInteger(value) ? BigInt(value).toString() : String(value)),
    );
  }
}

/**
 * Type-checks an object of `definition` on its way into storage, as decoding into the Go type
 * would: a mistyped field is a 400 `<Kind> in version "<v>" cannot be handled as a <Kind>: json: …`.
 * Unstructured types (custom resources) have no Go type: their schema validation reports types.
 */
export function checkFieldTypes(object: Record<string, unknown>, definition: TypedDefinition, numberLiteral?: NumberLiteral): void {
  if (definition.unstructured === true || checked.get(object) === definition) return;
  const options: FieldTypeOptions = { kind: definition.kind };
  if (numberLiteral !== undefined) options.numberLiteral = numberLiteral;
  const message = fieldTypeError(object, definition.schema, options);
  if (message !== undefined) throw decodeError(definition, message);
  // An object checked against exact literals may hold integers JSON.parse rounded past their
  // range; the registry's own check, on the values it would store, still runs for it.
  if (numberLiteral === undefined) checked.set(object, definition);
}

/**
 * Go's decode error for the first mistyped field of `object` (an object of `definition`), or
 * undefined, remembered on a pass as `checkFieldTypes` remembers one: a PATCH checks the patched
 * object itself (its error names the patch), and the registry need not walk it again.
 */
export function patchedFieldTypeError(object: Record<string, unknown>, definition: TypedDefinition): string | undefined {
  const message = fieldTypeError(object, definition.schema, { kind: definition.kind });
  if (message === undefined) checked.set(object, definition);
  return message;
}

/** Whether `object` passed `checkFieldTypes` for `definition` (so a deep copy of it would pass too). */
export function passedFieldTypes(object: object, definition: TypedDefinition): boolean {
  return checked.get(object) === definition;
}

/**
 * Marks `copy` (a deep copy of `original`) as checked when `original` passed `checkFieldTypes`:
 * the wire decoder checks a body (it alone knows the exact number literals), and the registry,
 * which checks what in-process callers hand it, need not walk the same values again.
 */
export function carryFieldTypesCheck(original: object, copy: object): void {
  const definition = checked.get(original);
  if (definition !== undefined) checked.set(copy, definition);
}

type TypedDefinition = { kind: string; version: string; schema?: JSONSchemaProps | undefined; unstructured?: boolean | undefined };

/** Objects known to have passed `checkFieldTypes` for a definition. */
const checked = new WeakMap<object, TypedDefinition>();
