/**
 * The subset of client-go's `util/jsonpath` that printer columns, scale paths and selectable fields
 * use: `.a.b`, `['a.b']`, `[0]`, `[-1]`, `[*]`, `.*` and filters `[?(@.type=="Ready")]` (with `==`
 * or `!=` against a string, number or boolean literal, or `[?(@.key)]` for presence).
 */

type Step =
  | { kind: "field"; name: string }
  | { kind: "index"; index: number }
  | { kind: "wildcard" }
  | { kind: "filter"; path: Step[]; op: "==" | "!=" | "exists"; value: unknown };

export class JsonPathError extends Error {}

const FIELD_CHAR = /[A-Za-z0-9_\-/$]/;

function parseFilter(text: string): Step {
  const match = /^@((?:\.[A-Za-z0-9_\-/$]+)+)\s*(?:(==|!=)\s*(.+))?$/.exec(text.trim());
  if (!match) throw new JsonPathError(`unrecognized filter "${text}"`);
  const path = parsePath(match[1]!);
  if (match[2] === undefined) return { kind: "filter", path, op: "exists", value: undefined };
  const literal = match[3]!.trim();
  let value: unknown;
  if (/^(["']).*\1$/.test(literal)) value = literal.slice(1, -1);
  else if (literal === "true" || literal === "false") value = literal === "true";
  else if (!Number.isNaN(Number(literal))) value = Number(literal);
  else throw new JsonPathError(`unrecognized literal ${literal} in filter`);
  return { kind: "filter", path, op: match[2] as "==" | "!=", value };
}

/** Parses a path like `.status.conditions[?(@.type=="Ready")].status` (with or without `{}` around it). */
export function parsePath(expression: string): Step[] {
  let text = expression.trim();
  if (text.startsWith("{") && text.endsWith("}")) text = text.slice(1, -1).trim();
  if (text.startsWith("$")) text = text.slice(1);
  const steps: Step[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ".") {
      i++;
      if (text[i] === "*") {
        steps.push({ kind: "wildcard" });
        i++;
        continue;
      }
      let name = "";
      while (i < text.length && FIELD_CHAR.test(text[i]!)) name += text[i++];
      if (name === "" && i < text.length && text[i] !== "[")
        throw new JsonPathError(`invalid character ${JSON.stringify(text[i])} at ${i} in ${expression}`);
      if (name !== "") steps.push({ kind: "field", name });
    } else if (c === "[") {
      const close = text.startsWith("[?(", i) ? text.indexOf(")]", i) + 1 : text.indexOf("]", i);
      if (close <= i) throw new JsonPathError(`unterminated [ in ${expression}`);
      const inner = text.slice(i + 1, close).trim();
      i = close + 1;
      if (inner === "*") steps.push({ kind: "wildcard" });
      else if (/^-?\d+$/.test(inner)) steps.push({ kind: "index", index: Number(inner) });
      else if (/^(["']).*\1$/.test(inner)) steps.push({ kind: "field", name: inner.slice(1, -1) });
      else if (inner.startsWith("?(") && inner.endsWith(")")) steps.push(parseFilter(inner.slice(2, -1)));
      else throw new JsonPathError(`unsupported subscript [${inner}] in ${expression}`);
    } else {
      throw new JsonPathError(`invalid character ${JSON.stringify(c)} at ${i} in ${expression}`);
    }
  }
  return steps;
}

function children(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (value !== null && typeof value === "object") return Object.values(value);
  return [];
}

function apply(steps: readonly Step[], values: unknown[]): unknown[] {
  let current = values;
  for (const step of steps) {
    const next: unknown[] = [];
    for (const value of current) {
      switch (step.kind) {
        case "field":
          if (value !== null && typeof value === "object" && !Array.isArray(value) && Object.hasOwn(value, step.name))
            next.push((value as Record<string, unknown>)[step.name]);
          break;
        case "index":
          if (Array.isArray(value)) {
            const index = step.index < 0 ? value.length + step.index : step.index;
            if (index >= 0 && index < value.length) next.push(value[index]);
          }
          break;
        case "wildcard":
          next.push(...children(value));
          break;
        case "filter":
          for (const item of children(value)) {
            const found = apply(step.path, [item]);
            if (step.op === "exists" ? found.length > 0 : found.some((f) => f === step.value) === (step.op === "==")) next.push(item);
          }
          break;
      }
    }
    current = next;
  }
  return current;
}

/** Every value `expression` selects in `object` (none when a step is missing). */
export function evaluatePath(steps: readonly Step[], object: unknown): unknown[] {
  return apply(steps, [object]);
}

/** A path compiled once, evaluated per object. */
export function compilePath(expression: string): (object: unknown) => unknown[] {
  const steps = parsePath(expression);
  return (object) => evaluatePath(steps, object);
}

/**
 * upstream `validateSimpleJSONPath` (printer columns and scale paths): the messages a CRD's
 * validation gives, or none.
 */
export function simpleJsonPathProblem(path: string): string | undefined {
  if (path.length === 0) return "must not be empty";
  if (!path.startsWith(".")) return "must be a simple json path starting with .";
  return undefined;
}
