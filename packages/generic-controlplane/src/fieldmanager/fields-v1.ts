import { sortedExactJson } from "../api/exact-json.js";
import { setOwn } from "../patch/json-value.js";
import { FieldSet, type FieldPath } from "./field-set-trie.js";

/**
 * The FieldsV1 codec (`metadata.managedFields[].fieldsV1`), after structured-merge-diff's
 * `fieldpath.Set` JSON form, and the path elements it spells: `f:<name>` for a field or map key,
 * `k:{"name":"a"}` for an associative-list item (key fields sorted), `v:"x"` for a set value,
 * `i:<n>` for an index. In the JSON trie a member that also has children carries `".": {}`.
 */

export type { FieldPath } from "./field-set-trie.js";

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

export function fieldElement(name: string): string {
  return `f:${name}`;
}

export function keyElement(key: Record<string, unknown>): string {
  return `k:${flatSortedJson(key) ?? sortedExactJson(key)}`;
}

export function valueElement(value: unknown): string {
  return `v:${isFlatJson(value) ? JSON.stringify(value) : sortedExactJson(value)}`;
}

/** A string, boolean or finite number: JSON that needs no replacer. */
function isFlatJson(value: unknown): value is string | boolean | number {
  return typeof value === "string" || typeof value === "boolean" || (typeof value === "number" && Number.isFinite(value));
}

/**
 * What `sortedExactJson` writes for a record of flat values (every list key is one: a name, a
 * port, a protocol), spelled without a replacer call and a sorted copy per record; undefined for
 * any other record.
 */
function flatSortedJson(record: Record<string, unknown>): string | undefined {
  const names = Object.keys(record);
  if (names.length > 1) names.sort();
  let json = "{";
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    const value = record[name];
    if (!isFlatJson(value)) return undefined;
    json += `${i === 0 ? "" : ","}${JSON.stringify(name)}:${JSON.stringify(value)}`;
  }
  return `${json}}`;
}

export function makePath(...elements: string[]): FieldPath {
  return elements;
}

const ELEMENT_ORDER: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

/** structured-merge-diff's element order: field names, then keys, then values, then indexes. */
export function compareElements(a: string, b: string): number {
  const kind = (ELEMENT_ORDER[a[0] ?? ""] ?? 9) - (ELEMENT_ORDER[b[0] ?? ""] ?? 9);
  if (kind !== 0) return kind;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Paths in structured-merge-diff's order, parents first. */
export function sortPaths(paths: Iterable<FieldPath>): FieldPath[] {
  return [...paths].sort((x, y) => {
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
      const c = compareElements(x[i]!, y[i]!);
      if (c !== 0) return c;
    }
    return x.length - y.length;
  });
}

/** The FieldsV1 trie of a field set; built level by level, as sets nest as deep as objects. */
export function toFieldsV1(set: FieldSet): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  const pending: Array<[FieldSet, Record<string, unknown>]> = [[set, root]];
  while (pending.length > 0) {
    const [node, out] = pending.pop()!;
    const elements = [...node.members];
    for (const element of node.children.keys()) if (!node.members.has(element)) elements.push(element);
    for (const element of elements.sort(compareElements)) {
      const child = node.children.get(element);
      const entry: Record<string, unknown> = {};
      // A member that also has children is marked with ".".
      if (child !== undefined && !child.isEmpty() && node.members.has(element)) entry["."] = {};
      setOwn(out, element, entry);
      if (child !== undefined) pending.push([child, entry]);
    }
  }
  return root;
}

/**
 * Path elements that passed `checkElement`, so the JSON of a list key is parsed once, not on every
 * decoding of every object's managedFields (each write decodes the stored ones). Bounded in count
 * (cleared when full) and in size: a longer element is checked every time rather than kept.
 */
const checkedElements = new Set<string>();
const CHECKED_ELEMENTS = 10_000;
const CHECKED_ELEMENT_LENGTH = 256;

/** A `f:`, `i:`, or `k:`/`v:` element holding JSON; anything else is a FieldsV1Error. */
function checkElement(key: string): void {
  if (checkedElements.has(key)) return;
  const kind = key[0];
  if (key[1] !== ":" || (kind !== "f" && kind !== "k" && kind !== "v" && kind !== "i"))
    throw new FieldsV1Error(`unexpected path element ${JSON.stringify(key)}`);
  if (kind === "k" || kind === "v") {
    try {
      JSON.parse(key.slice(2));
    } catch {
      throw new FieldsV1Error(`path element ${JSON.stringify(key)} does not hold JSON`);
    }
    if (key.length > CHECKED_ELEMENT_LENGTH) return;
    if (checkedElements.size >= CHECKED_ELEMENTS) checkedElements.clear();
    checkedElements.add(key);
  }
}

/** Where the decoder is, kept as links to the parent so that going deeper costs nothing. */
interface Trail {
  parent: Trail | undefined;
  element: string;
}

function trailText(trail: Trail): string {
  const elements: string[] = [];
  for (let at: Trail | undefined = trail; at !== undefined; at = at.parent) elements.push(at.element);
  return elements.reverse().join(".");
}

/** Thrown for a FieldsV1 value that is not a field set. */
export class FieldsV1Error extends Error {}

/** The field set a FieldsV1 trie spells; a malformed trie is a FieldsV1Error. */
export function fromFieldsV1(fields: unknown): FieldSet {
  const out = new FieldSet();
  if (fields === undefined || fields === null) return out;
  if (!isRecord(fields)) throw new FieldsV1Error(`expected an object at ""`);
  const pending: Array<[Record<string, unknown>, FieldSet, Trail | undefined]> = [[fields, out, undefined]];
  while (pending.length > 0) {
    const [node, set, trail] = pending.pop()!;
    for (const key of Object.keys(node)) {
      if (key === ".") continue;
      checkElement(key);
      const child = node[key];
      const childTrail: Trail = { parent: trail, element: key };
      if (!isRecord(child)) throw new FieldsV1Error(`expected an object at ${JSON.stringify(trailText(childTrail))}`);
      const grandchildren = Object.keys(child).some((k) => k !== ".");
      if (!grandchildren || child["."] !== undefined) set.members.add(key);
      if (grandchildren) pending.push([child, set.child(key), childTrail]);
    }
  }
  return out;
}

/** `.spec.ports[name="a"].port`, `.metadata.finalizers[="x"]`: how structured-merge-diff prints a path. */
export function printPath(path: FieldPath): string {
  return path
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
  if (isRecord(value))
    return `{${Object.entries(value)
      .map(([k, v]) => `${k}=${printValue(v)}`)
      .join(",")}}`;
  // Scalars: strings quoted (Go's %q), numbers and booleans as they are.
  return typeof value === "string" ? JSON.stringify(value) : JSON.stringify(value ?? null);
}
