import { setOwn } from "../patch/json-value.js";

/**
 * The FieldsV1 codec (`metadata.managedFields[].fieldsV1`), after structured-merge-diff's
 * `fieldpath.Set` JSON form. A field set is a set of member paths; a path is its elements in
 * FieldsV1 spelling joined by PATH_SEPARATOR: `f:<name>` for a field or map key, `k:{"name":"a"}`
 * for an associative-list item (key fields sorted), `v:"x"` for a set value, `i:<n>` for an
 * index. In the JSON trie a member that also has children carries `".": {}`.
 */

export const PATH_SEPARATOR = "\u0000";

export type FieldPath = string;

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** JSON with object keys sorted, the form `k:` and `v:` elements use. */
function sortedJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (!isRecord(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) setOwn(sorted, k, v[k]);
    return sorted;
  });
}

export function fieldElement(name: string): string {
  return `f:${name}`;
}

export function keyElement(key: Record<string, unknown>): string {
  return `k:${sortedJson(key)}`;
}

export function valueElement(value: unknown): string {
  return `v:${sortedJson(value)}`;
}

export function childPath(parent: FieldPath, element: string): FieldPath {
  return parent === "" ? element : `${parent}${PATH_SEPARATOR}${element}`;
}

export function pathElements(path: FieldPath): string[] {
  return path === "" ? [] : path.split(PATH_SEPARATOR);
}

export function makePath(...elements: string[]): FieldPath {
  return elements.join(PATH_SEPARATOR);
}

const ELEMENT_ORDER: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

function compareElements(a: string, b: string): number {
  const kind = (ELEMENT_ORDER[a[0] ?? ""] ?? 9) - (ELEMENT_ORDER[b[0] ?? ""] ?? 9);
  if (kind !== 0) return kind;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Paths in structured-merge-diff's order (field names, then keys, then values), parents first. */
export function sortPaths(paths: Iterable<FieldPath>): FieldPath[] {
  return [...paths].sort((a, b) => {
    const x = pathElements(a);
    const y = pathElements(b);
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
      const c = compareElements(x[i] as string, y[i] as string);
      if (c !== 0) return c;
    }
    return x.length - y.length;
  });
}

/** The FieldsV1 trie of a set of member paths. */
export function toFieldsV1(members: Iterable<FieldPath>): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  const memberSet = new Set(members);
  for (const path of sortPaths(memberSet)) {
    let node = root;
    for (const element of pathElements(path)) {
      let child = node[element] as Record<string, unknown> | undefined;
      if (child === undefined) {
        child = {};
        node[element] = child;
      }
      node = child;
    }
  }
  // A member that also has children is marked with ".".
  const mark = (node: Record<string, unknown>, path: FieldPath): Record<string, unknown> => {
    const keys = Object.keys(node);
    const out: Record<string, unknown> = {};
    if (keys.length > 0 && path !== "" && memberSet.has(path)) out["."] = {};
    for (const key of keys) out[key] = mark(node[key] as Record<string, unknown>, childPath(path, key));
    return out;
  };
  return mark(root, "");
}

/** Thrown for a FieldsV1 value that is not a field set. */
export class FieldsV1Error extends Error {}

/** The member paths of a FieldsV1 trie; a malformed trie is a FieldsV1Error. */
export function fromFieldsV1(fields: unknown): Set<FieldPath> {
  const out = new Set<FieldPath>();
  if (fields === undefined || fields === null) return out;
  const walk = (node: unknown, path: FieldPath): void => {
    if (!isRecord(node)) throw new FieldsV1Error(`expected an object at ${JSON.stringify(path)}`);
    const children = Object.keys(node).filter((k) => k !== ".");
    if (path !== "" && (children.length === 0 || node["."] !== undefined)) out.add(path);
    for (const key of children) {
      if (!/^[fkvi]:/.test(key)) throw new FieldsV1Error(`unexpected path element ${JSON.stringify(key)}`);
      if (key[0] === "k" || key[0] === "v") {
        try {
          JSON.parse(key.slice(2));
        } catch {
          throw new FieldsV1Error(`path element ${JSON.stringify(key)} does not hold JSON`);
        }
      }
      walk(node[key], childPath(path, key));
    }
  };
  walk(fields, "");
  return out;
}

/** `.spec.ports[name="a"].port`, `.metadata.finalizers[="x"]`: how structured-merge-diff prints a path. */
export function printPath(path: FieldPath): string {
  return pathElements(path)
    .map((element) => {
      const body = element.slice(2);
      switch (element[0]) {
        case "f":
          return `.${body}`;
        case "k":
          return `[${Object.entries(JSON.parse(body) as Record<string, unknown>)
            .map(([k, v]) => `${k}=${printValue(v)}`)
            .join(",")}]`;
        case "v":
          return `[=${printValue(JSON.parse(body))}]`;
        default:
          return `[${body}]`;
      }
    })
    .join("");
}

function printValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return `[${value.map(printValue).join(",")}]`;
  if (isRecord(value)) return `{${Object.entries(value).map(([k, v]) => `${k}=${printValue(v)}`).join(",")}}`;
  // Scalars: strings quoted (Go's %q), numbers and booleans as they are.
  return typeof value === "string" ? JSON.stringify(value) : JSON.stringify(value ?? null);
}
