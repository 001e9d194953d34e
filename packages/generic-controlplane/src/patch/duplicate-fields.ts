import { isMap, isScalar, LineCounter, parseAllDocuments, visit } from "yaml";

/**
 * Fields a request body names twice, as the messages upstream's strict decoders give:
 * JSON `duplicate field "spec.replicas"` (sigs.k8s.io/json, full field path) and YAML
 * `line 9: key "foo" already set in map` (go-yaml). Used for `fieldValidation=Strict` (400) and
 * `Warn` (Warning headers). A body that does not parse yields no messages: decoding reports that.
 */
export function findDuplicateFields(text: string, contentType = "application/json"): string[] {
  if (isYamlContentType(contentType)) return duplicateYamlKeys(text);
  return (scanJsonFields(text) ?? []).filter((field) => field.duplicate).map((field) => `duplicate field "${field.path}"`);
}

/** Whether a body's Content-Type names YAML (its duplicate keys are go-yaml's, not JSON's). */
export const isYamlContentType = (contentType: string): boolean => /yaml/i.test(contentType);

/**
 * Whether a JSON text that parsed to `parsed` may name a key twice in one object. JSON.parse keeps
 * one property per key spelled (the last of duplicates), so a text without duplicates spells exactly
 * as many keys as the parsed value holds: counting both is far cheaper than scanJsonFields, and only
 * a text that fails the count needs the full scan.
 */
export function mayHaveDuplicateJsonKeys(text: string, parsed: unknown): boolean {
  return countKeyTokens(text) !== countProperties(parsed);
}

/** The strings of a valid JSON text that a colon follows: its object keys. */
function countKeyTokens(text: string): number {
  let count = 0;
  let quote = text.indexOf('"');
  while (quote !== -1) {
    // The closing quote is the first one not escaped by an odd run of backslashes.
    let end = text.indexOf('"', quote + 1);
    for (;;) {
      let backslashes = 0;
      while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++;
      if (backslashes % 2 === 0) break;
      end = text.indexOf('"', end + 1);
    }
    if (end === -1) return -1;
    let after = end + 1;
    while (isJsonSpace(text.charCodeAt(after))) after++;
    if (text.charCodeAt(after) === COLON) count++;
    quote = text.indexOf('"', after);
  }
  return count;
}

const BACKSLASH = 0x5c;
const COLON = 0x3a;
const isJsonSpace = (code: number): boolean => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;

/** How many object properties `value` holds at every depth; iterative, as bodies nest 10,000 deep. */
function countProperties(value: unknown): number {
  let count = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const current = pending.pop();
    if (current === null || typeof current !== "object") continue;
    if (Array.isArray(current)) {
      for (const item of current) pending.push(item);
      continue;
    }
    for (const key in current) {
      if (!Object.hasOwn(current, key)) continue;
      count++;
      pending.push((current as Record<string, unknown>)[key]);
    }
  }
  return count;
}

/** One object key of a JSON text, in document order. */
export interface JsonField {
  /** Field path, e.g. `spec.items[0].name`. */
  path: string;
  /** Whether an earlier key of the same object had this name. */
  duplicate: boolean;
}

function duplicateYamlKeys(text: string): string[] {
  const lineCounter = new LineCounter();
  const messages: string[] = [];
  for (const document of parseAllDocuments(text, { uniqueKeys: false, lineCounter })) {
    if (document.errors.length > 0) return [];
    visit(document, {
      Map(_, node) {
        const seen = new Set<string>();
        for (const pair of node.items) {
          const key = pair.key;
          if (!isScalar(key) && !isMap(key)) continue;
          const name = isScalar(key) ? String(key.value) : JSON.stringify(key.toJSON());
          if (seen.has(name)) {
            const line = key.range === undefined || key.range === null ? 0 : lineCounter.linePos(key.range[0]).line;
            messages.push(`line ${line}: key ${JSON.stringify(name)} already set in map`);
          }
          seen.add(name);
        }
      },
    });
  }
  return messages;
}

/** An array or object scanJsonFields is inside of: its path, and the keys it has named so far. */
interface OpenValue {
  path: string;
  /** The keys seen so far, for an object; undefined for an array. */
  seen: Set<string> | undefined;
  /** The index of the next element, for an array. */
  index: number;
  /** Whether an entry was read and a comma or the closing bracket comes next. */
  afterEntry: boolean;
}

const SCALAR = /true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * Every object key of a JSON text in document order, or undefined when the text is not JSON. It
 * keeps its place with an explicit stack rather than recursion, as a body may nest 10,000 deep.
 */
export function scanJsonFields(text: string): JsonField[] | undefined {
  const fields: JsonField[] = [];
  const open: OpenValue[] = [];
  let i = 0;
  const ws = (): void => {
    while (i < text.length && isJsonSpace(text.charCodeAt(i))) i++;
  };
  const string = (): string | undefined => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    if (i >= text.length) return undefined;
    i++;
    try {
      return JSON.parse(text.slice(start, i)) as string;
    } catch {
      return undefined;
    }
  };
  /** Reads one value at `path`; false when the text is not JSON. Arrays and objects are opened, not read. */
  const value = (path: string): boolean => {
    ws();
    const c = text[i];
    if (c === "{" || c === "[") {
      i++;
      open.push({ path, seen: c === "{" ? new Set() : undefined, index: 0, afterEntry: false });
      ws();
      if (text[i] === (c === "{" ? "}" : "]")) {
        i++;
        open.pop();
      }
      return true;
    }
    if (c === '"') return string() !== undefined;
    SCALAR.lastIndex = i;
    if (!SCALAR.test(text)) return false;
    i = SCALAR.lastIndex;
    return true;
  };
  /** Reads the next entry of the innermost open array or object; false when the text is not JSON. */
  const entry = (container: OpenValue): boolean => {
    if (container.seen === undefined) return value(`${container.path}[${container.index++}]`);
    ws();
    if (text[i] !== '"') return false;
    const key = string();
    if (key === undefined) return false;
    const keyPath = container.path === "" ? key : `${container.path}.${key}`;
    fields.push({ path: keyPath, duplicate: container.seen.has(key) });
    container.seen.add(key);
    ws();
    if (text[i] !== ":") return false;
    i++;
    return value(keyPath);
  };
  /** After an entry: a comma (more entries follow) or the closing bracket; false when neither. */
  const separator = (container: OpenValue): boolean => {
    ws();
    if (text[i] === ",") {
      i++;
      return true;
    }
    if (text[i] !== (container.seen === undefined ? "]" : "}")) return false;
    i++;
    open.pop();
    return true;
  };

  if (!value("")) return undefined;
  while (open.length > 0) {
    const container = open.at(-1)!;
    if (container.afterEntry) {
      container.afterEntry = false;
      if (!separator(container)) return undefined;
      continue;
    }
    // A nested array or object the entry opens is read to its end before this separator.
    container.afterEntry = true;
    if (!entry(container)) return undefined;
  }
  ws();
  return i === text.length ? fields : undefined;
}
