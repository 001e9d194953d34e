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

function countProperties(value: unknown): number {
  if (value === null || typeof value !== "object") return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (const item of value) count += countProperties(item);
    return count;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    count += 1 + countProperties((value as Record<string, unknown>)[key]);
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

/** Every object key of a JSON text in document order, or undefined when the text is not JSON. */
export function scanJsonFields(text: string): JsonField[] | undefined {
  const fields: JsonField[] = [];
  let i = 0;
  const fail = (): never => {
    throw new SyntaxError("invalid JSON");
  };
  const ws = () => {
    while (i < text.length && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++;
  };
  const string = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    if (i >= text.length) fail();
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (path: string): void => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      const seen = new Set<string>();
      ws();
      if (text[i] === "}") {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        const key = string();
        const keyPath = path === "" ? key : `${path}.${key}`;
        fields.push({ path: keyPath, duplicate: seen.has(key) });
        seen.add(key);
        ws();
        if (text[i] !== ":") fail();
        i++;
        value(keyPath);
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") {
          i++;
          return;
        }
        fail();
      }
    } else if (c === "[") {
      i++;
      ws();
      if (text[i] === "]") {
        i++;
        return;
      }
      for (let index = 0; ; index++) {
        value(`${path}[${index}]`);
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "]") {
          i++;
          return;
        }
        fail();
      }
    } else if (c === '"') {
      string();
    } else {
      const match = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 400));
      if (match === null) fail();
      i += (match as RegExpExecArray)[0].length;
    }
  };
  try {
    value("");
    ws();
    if (i !== text.length) fail();
    return fields;
  } catch {
    return undefined;
  }
}
