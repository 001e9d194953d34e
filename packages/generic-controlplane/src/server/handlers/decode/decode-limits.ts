import { badRequest } from "../../../api/errors/index.js";

/**
 * The deepest nesting of arrays and objects a request body may have. Go's JSON decoder stops at
 * 10,000 levels (`exceeded max depth`); patching, managed-fields tracking and object comparison
 * here recurse once per level, so the limit is lower to keep every such walk well clear of the
 * stack limit. Real objects nest a few dozen levels at most.
 */
export const MAX_NESTING_DEPTH = 10_000;

export type BodySyntax = "json" | "yaml";

function prefix(syntax: BodySyntax): string {
  return syntax === "json" ? "error decoding request body: json parse error" : "error decoding YAML";
}

/** The JSON form of a YAML value that has none (`!!binary`, `.inf`, `!!set`), for the error message. */
function unsupported(value: unknown): string | undefined {
  switch (typeof value) {
    // A bigint is an exact int64 (from JSON-form YAML).
    case "string":
    case "boolean":
    case "bigint":
      return undefined;
    case "number":
      if (Number.isFinite(value)) return undefined;
      return `json: unsupported value: ${Number.isNaN(value) ? "NaN" : value > 0 ? "+Inf" : "-Inf"}`;
    case "object":
      if (value === null || Array.isArray(value)) return undefined;
      if (value instanceof Uint8Array) return "!!binary values have no JSON form";
      if (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null) return undefined;
      return `unsupported value of type ${value.constructor.name}`;
    default:
      return `unsupported value of type ${typeof value}`;
  }
}

/**
 * Refuses a decoded body nested deeper than MAX_NESTING_DEPTH, and (for YAML) one holding values
 * JSON cannot carry, with a 400. Walks iteratively, so the check itself cannot overflow the stack.
 */
export function checkDecodedBody(value: unknown, syntax: BodySyntax): void {
  const stack: Array<[unknown, number]> = [[value, 1]];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const [current, depth] = entry;
    if (syntax === "yaml") {
      const problem = unsupported(current);
      if (problem !== undefined) throw badRequest(`${prefix(syntax)}: ${problem}`);
    }
    if (current === null || typeof current !== "object") continue;
    if (depth > MAX_NESTING_DEPTH) throw badRequest(`${prefix(syntax)}: exceeded max depth`);
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
      else if (syntax === "yaml") stack.push([child, depth + 1]);
    }
  }
}
