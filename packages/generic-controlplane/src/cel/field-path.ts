import type { JSONSchemaProps } from "../schema/types.js";
import { declaredProperty } from "../schema/declared-property.js";

/**
 * A rule's `fieldPath` (`.spec.replicas`, `.labels['app.kubernetes.io/name']`): a JSON path of
 * field and map-key accessors that must exist in the schema (apiextensions `ValidFieldPath`).
 * Returns the Go-notation field path relative to the rule's node, or why it is invalid.
 */
export function parseRuleFieldPath(path: string, schema: JSONSchemaProps): { ok: true; path: string } | { ok: false; error: string } {
  const tokens = tokenize(path);
  let current: JSONSchemaProps | undefined = schema;
  let out = "";
  const step = (name: string): string | undefined => {
    if (current?.properties !== undefined) {
      out = out === "" ? name : `${out}.${name}`;
      current = declaredProperty(current, name);
      return current === undefined ? "does not refer to a valid field" : undefined;
    }
    if (current !== undefined && typeof current.additionalProperties === "object") {
      out = `${out}[${name}]`;
      current = current.additionalProperties;
      return undefined;
    }
    return "does not refer to a valid field";
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] ?? "";
    if (token === ".") {
      const name = tokens[++i];
      if (name === undefined) return { ok: false, error: "unexpected end of JSON path" };
      const error = step(name);
      if (error !== undefined) return { ok: false, error };
    } else if (token === "[") {
      const quoted = tokens[++i];
      if (quoted === undefined) return { ok: false, error: "unexpected end of JSON path" };
      if (quoted.length < 2 || !quoted.startsWith("'") || !quoted.endsWith("'")) {
        return { ok: false, error: `expected single quoted string but got ${quoted}` };
      }
      const error = step(quoted.slice(1, -1).replace(/\\(.)/g, "$1"));
      if (error !== undefined) return { ok: false, error };
      if (tokens[++i] !== "]") return { ok: false, error: `expected ] but got ${tokens[i] ?? ""}` };
    } else {
      return { ok: false, error: `expected [ or . but got: ${token}` };
    }
  }
  return { ok: true, path: out };
}

function tokenize(path: string): string[] {
  const tokens: string[] = [];
  let i = 0;
  while (i < path.length) {
    const c = path[i] ?? "";
    if (c === "." || c === "[" || c === "]") {
      tokens.push(c);
      i++;
    } else if (c === "'") {
      let j = i + 1;
      while (j < path.length && !(path[j] === "'" && path[j - 1] !== "\\")) j++;
      tokens.push(path.slice(i, j + 1));
      i = j + 1;
    } else {
      let j = i;
      while (j < path.length && !".[]".includes(path[j] ?? "")) j++;
      tokens.push(path.slice(i, j));
      i = j;
    }
  }
  return tokens;
}
