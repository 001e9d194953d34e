import type { Expr } from "@bufbuild/cel-spec/cel/expr/syntax_pb.js";
import type { JSONSchemaProps } from "../schema/types.js";
import { escapePropertyName } from "./escape.js";
import { MAX_REQUEST_SIZE_BYTES } from "./limits.js";

/**
 * Static cost estimation after cel-go's `checker.CostEstimator` with apiserver's size estimates:
 * every traversal is priced at the largest size the schema allows (maxItems, maxProperties,
 * maxLength), and an unbounded list, map or string at the most a 3 MiB request could hold. The
 * numbers follow cel-go's cost model closely enough that the same rules pass and fail the same
 * budgets; they are an upper bound, not a measurement.
 */

interface Shape {
  schema: JSONSchemaProps | undefined;
  /** Largest length (string), item count (list) or entry count (map) the value can have. */
  maxSize: number;
}

interface Estimate {
  cost: number;
  shape: Shape;
}

const UNKNOWN: Shape = { schema: undefined, maxSize: MAX_REQUEST_SIZE_BYTES };
const STRING_TRAVERSAL_FACTOR = 0.1;
const REGEX_FACTOR = 0.25;

/** The fewest bytes a value of this schema takes in JSON, for sizing unbounded lists. */
function minSerializedSize(schema: JSONSchemaProps | undefined): number {
  if (schema === undefined) return 1;
  if (schema.nullable === true) return 4;
  if (schema["x-kubernetes-int-or-string"] === true) return 1;
  switch (schema.type) {
    case "string":
      return 2 + (schema.minLength ?? 0);
    case "boolean":
      return 4;
    case "integer":
    case "number":
      return 1;
    default:
      return 2;
  }
}

/** The largest size a value of this schema can have. */
export function maxSizeOf(schema: JSONSchemaProps | undefined): number {
  if (schema === undefined) return MAX_REQUEST_SIZE_BYTES;
  switch (schema.type) {
    case "array":
      return schema.maxItems ?? Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (minSerializedSize(schema.items) + 1));
    case "object": {
      if (schema.properties !== undefined) return Object.keys(schema.properties).length;
      const valueSchema = typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined;
      // A map entry is at least `"":` plus its value and a comma.
      return schema.maxProperties ?? Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (minSerializedSize(valueSchema) + 4));
    }
    case "string":
      return schema.maxLength ?? MAX_REQUEST_SIZE_BYTES - 2;
    default:
      return 1;
  }
}

function shapeOf(schema: JSONSchemaProps | undefined): Shape {
  return { schema, maxSize: maxSizeOf(schema) };
}

function fieldSchema(schema: JSONSchemaProps | undefined, celName: string): JSONSchemaProps | undefined {
  if (schema === undefined) return undefined;
  if (schema.properties !== undefined) {
    for (const [name, property] of Object.entries(schema.properties)) {
      if (escapePropertyName(name) === celName) return property;
    }
    return undefined;
  }
  return elementSchema(schema);
}

function elementSchema(schema: JSONSchemaProps | undefined): JSONSchemaProps | undefined {
  if (schema === undefined) return undefined;
  if (schema.type === "array") return schema.items;
  if (typeof schema.additionalProperties === "object") return schema.additionalProperties;
  return undefined;
}

function traversal(size: number): number {
  return Math.ceil(size * STRING_TRAVERSAL_FACTOR);
}

/** Functions whose cost grows with the length of their string or list target. */
const STRING_TRAVERSING = new Set([
  "contains",
  "startsWith",
  "endsWith",
  "charAt",
  "indexOf",
  "lastIndexOf",
  "lowerAscii",
  "upperAscii",
  "replace",
  "split",
  "substring",
  "trim",
  "join",
  "format",
  "strings.quote",
  "find",
  "findAll",
  "quantity",
  "isQuantity",
  "ip",
  "isIP",
  "cidr",
  "isCIDR",
  "url",
  "isURL",
  "validate",
  "string",
]);
const LIST_TRAVERSING = new Set(["isSorted", "sum", "min", "max", "@in", "_==_", "_!=_"]);

export class CostEstimator {
  constructor(private readonly variables: ReadonlyMap<string, JSONSchemaProps | undefined>) {}

  estimate(expr: Expr): number {
    return this.visit(expr, new Map()).cost;
  }

  private visit(expr: Expr, locals: ReadonlyMap<string, Shape>): Estimate {
    const kind = expr.exprKind;
    switch (kind.case) {
      case "constExpr":
        return { cost: 0, shape: constShape(kind.value.constantKind) };
      case "identExpr": {
        const local = locals.get(kind.value.name);
        if (local !== undefined) return { cost: 1, shape: local };
        if (this.variables.has(kind.value.name)) return { cost: 1, shape: shapeOf(this.variables.get(kind.value.name)) };
        return { cost: 1, shape: UNKNOWN };
      }
      case "selectExpr": {
        if (kind.value.operand === undefined) return { cost: 1, shape: UNKNOWN };
        const operand = this.visit(kind.value.operand, locals);
        return { cost: operand.cost + 1, shape: shapeOf(fieldSchema(operand.shape.schema, kind.value.field)) };
      }
      case "listExpr": {
        let cost = 10;
        for (const element of kind.value.elements) cost += this.visit(element, locals).cost;
        return { cost, shape: { schema: undefined, maxSize: kind.value.elements.length } };
      }
      case "structExpr": {
        let cost = 30;
        for (const entry of kind.value.entries) {
          if (entry.keyKind.case === "mapKey") cost += this.visit(entry.keyKind.value, locals).cost;
          if (entry.value !== undefined) cost += this.visit(entry.value, locals).cost;
        }
        return { cost, shape: { schema: undefined, maxSize: kind.value.entries.length } };
      }
      case "comprehensionExpr": {
        const c = kind.value;
        const range = c.iterRange ? this.visit(c.iterRange, locals) : { cost: 0, shape: UNKNOWN };
        const inner = new Map(locals);
        const rangeSchema = range.shape.schema;
        const iterShape = rangeSchema?.type === "object" ? shapeOf({ type: "string" }) : shapeOf(elementSchema(rangeSchema));
        inner.set(c.iterVar, iterShape);
        if (c.iterVar2 !== "") inner.set(c.iterVar2, shapeOf(elementSchema(rangeSchema)));
        const accuInit = c.accuInit ? this.visit(c.accuInit, inner) : { cost: 0, shape: UNKNOWN };
        inner.set(c.accuVar, { schema: undefined, maxSize: range.shape.maxSize });
        const condition = c.loopCondition ? this.visit(c.loopCondition, inner).cost : 0;
        const step = c.loopStep ? this.visit(c.loopStep, inner).cost : 0;
        const result = c.result ? this.visit(c.result, inner) : { cost: 0, shape: UNKNOWN };
        const cost = range.cost + accuInit.cost + result.cost + range.shape.maxSize * (condition + step);
        return { cost, shape: { schema: undefined, maxSize: range.shape.maxSize } };
      }
      case "callExpr":
        return this.call(kind.value.function, kind.value.target, kind.value.args, locals);
      default:
        return { cost: 0, shape: UNKNOWN };
    }
  }

  private call(fn: string, target: Expr | undefined, args: Expr[], locals: ReadonlyMap<string, Shape>): Estimate {
    const targetEstimate = target ? this.visit(target, locals) : undefined;
    const argEstimates = args.map((arg) => this.visit(arg, locals));
    let cost = (targetEstimate?.cost ?? 0) + argEstimates.reduce((sum, a) => sum + a.cost, 0);
    const subject = targetEstimate ?? argEstimates[0];
    const subjectSize = subject?.shape.maxSize ?? 1;
    switch (fn) {
      case "_&&_":
      case "_||_":
      case "@not_strictly_false":
        return { cost, shape: UNKNOWN };
      case "_?_:_": {
        const [condition, whenTrue, whenFalse] = argEstimates;
        return {
          cost: (condition?.cost ?? 0) + Math.max(whenTrue?.cost ?? 0, whenFalse?.cost ?? 0),
          shape: whenTrue?.shape ?? UNKNOWN,
        };
      }
      case "_[_]": {
        const container = argEstimates[0]?.shape.schema;
        return { cost: cost + 1, shape: shapeOf(elementSchema(container)) };
      }
      case "size":
        return { cost: cost + 1, shape: { schema: { type: "integer" }, maxSize: 1 } };
      case "matches": {
        const pattern = args.length === 2 ? argEstimates[1] : argEstimates[0];
        cost += traversal(subjectSize) * Math.max(1, Math.ceil((pattern?.shape.maxSize ?? 1) * REGEX_FACTOR));
        return { cost, shape: UNKNOWN };
      }
      case "_+_": {
        const size = argEstimates.reduce((sum, a) => sum + a.shape.maxSize, 0);
        const isString = argEstimates.some((a) => a.shape.schema?.type === "string");
        return { cost: cost + (isString ? traversal(size) : 1), shape: { schema: argEstimates[0]?.shape.schema, maxSize: size } };
      }
    }
    if (LIST_TRAVERSING.has(fn)) {
      // Only values of a known list, map or string type are traversed; scalars compare in one step.
      const container = fn === "@in" ? argEstimates[1] : subject;
      const type = container?.shape.schema?.type;
      const size = container?.shape.maxSize ?? 1;
      if (type === "string") return { cost: cost + traversal(size), shape: UNKNOWN };
      if (type === "array" || type === "object") return { cost: cost + Math.max(1, size), shape: UNKNOWN };
      return { cost: cost + 1, shape: UNKNOWN };
    }
    if (STRING_TRAVERSING.has(fn)) {
      return { cost: cost + Math.max(1, traversal(subjectSize)), shape: { schema: subject?.shape.schema, maxSize: subjectSize } };
    }
    return { cost: cost + 1, shape: UNKNOWN };
  }
}

function constShape(constant: { case: string | undefined; value?: unknown }): Shape {
  if (constant.case === "stringValue" && typeof constant.value === "string") {
    return { schema: { type: "string" }, maxSize: constant.value.length };
  }
  return { schema: undefined, maxSize: 1 };
}
