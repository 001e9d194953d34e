/**
 * JSON parsing and serializing with an explicit stack, for values nested deeper than V8's own
 * recursive walks reach. Kubernetes accepts JSON nested 10,000 levels deep; `JSON.stringify`
 * overflows the call stack at about 4,400 levels and `JSON.parse` with a reviver at about 2,300.
 * exact-json falls back to these only when its fast path overflows, so ordinary objects never pay
 * for them.
 */

/** Decides what a number literal becomes: its text, the parsed double, and where it goes. */
export type NumberReviver = (source: string, value: number, holder: object, key: string) => unknown;

const WHITESPACE = /[ \t\n\r]*/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

interface OpenContainer {
  value: Record<string, unknown> | unknown[];
  /** The key whose value comes next, once an object's key has been read. */
  key: string | undefined;
}

/** Stores a parsed value as JSON.parse does: an own property, `__proto__` included. */
function defineOwn(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The end (exclusive) of the string literal that starts at `start` (its opening quote). */
function stringEnd(text: string, start: number): number {
  let at = start + 1;
  for (;;) {
    const quote = text.indexOf('"', at);
    if (quote < 0) throw new SyntaxError(`Unterminated string in JSON at position ${start}`);
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    at = quote + 1;
  }
}

/**
 * Parses JSON text `JSON.parse` has already accepted, without recursion. Every number literal goes
 * through `reviveNumber`, as exact-json's reviver sees them.
 */
export function parseValidJsonIteratively(text: string, reviveNumber: NumberReviver): unknown {
  const open: OpenContainer[] = [];
  let root: unknown;
  let at = 0;
  const place = (value: unknown): void => {
    const top = open.at(-1);
    if (top === undefined) root = value;
    else if (Array.isArray(top.value)) top.value.push(value);
    else {
      defineOwn(top.value, top.key!, value);
      top.key = undefined;
    }
  };
  const holderAndKey = (): [object, string] => {
    const top = open.at(-1);
    if (top === undefined) return [{}, ""];
    return Array.isArray(top.value) ? [top.value, String(top.value.length)] : [top.value, top.key!];
  };
  while (at < text.length) {
    WHITESPACE.lastIndex = at;
    WHITESPACE.test(text);
    at = WHITESPACE.lastIndex;
    if (at >= text.length) break;
    const char = text[at]!;
    switch (char) {
      case "{":
      case "[": {
        const container = char === "{" ? {} : [];
        place(container);
        open.push({ value: container, key: undefined });
        at++;
        break;
      }
      case "}":
      case "]":
        open.pop();
        at++;
        break;
      case ",":
      case ":":
        at++;
        break;
      case '"': {
        const end = stringEnd(text, at);
        const value = JSON.parse(text.slice(at, end)) as string;
        const top = open.at(-1);
        if (top !== undefined && !Array.isArray(top.value) && top.key === undefined) top.key = value;
        else place(value);
        at = end;
        break;
      }
      case "t":
        place(true);
        at += 4;
        break;
      case "f":
        place(false);
        at += 5;
        break;
      case "n":
        place(null);
        at += 4;
        break;
      default: {
        NUMBER.lastIndex = at;
        const match = NUMBER.exec(text);
        if (match === null) throw new SyntaxError(`Unexpected token '${char}' in JSON at position ${at}`);
        const [holder, key] = holderAndKey();
        place(reviveNumber(match[0], Number(match[0]), holder, key));
        at = NUMBER.lastIndex;
      }
    }
  }
  return root;
}

/** One array or object being written: its entries, and how far the writer has come. */
interface WritingContainer {
  entries: Array<[string | undefined, unknown]>;
  next: number;
  close: string;
  indent: string;
}

function isContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  if (typeof value !== "object" || value === null) return false;
  if (Array.isArray(value)) return true;
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * `JSON.stringify(value, replacer, space)` without recursion: the same text for plain data (objects,
 * arrays, strings, numbers, booleans, null; `undefined` and functions skipped in objects and null
 * in arrays), with `leaf` writing every value that is not an array or plain object. `sortKeys`
 * writes each object's keys in sorted order.
 */
export function stringifyIteratively(value: unknown, leaf: (value: unknown) => string | undefined, space = 0, sortKeys = false): string {
  const gap = " ".repeat(Math.min(10, Math.max(0, space)));
  const parts: string[] = [];
  const writing: WritingContainer[] = [];
  const entriesOf = (container: Record<string, unknown> | unknown[]): Array<[string | undefined, unknown]> =>
    Array.isArray(container)
      ? container.map((item) => [undefined, item])
      : (sortKeys ? Object.keys(container).sort() : Object.keys(container)).map((key) => [key, container[key]]);

  const begin = (current: unknown, indent: string): void => {
    if (!isContainer(current)) {
      parts.push(leaf(current) ?? "null");
      return;
    }
    const isArray = Array.isArray(current);
    const entries = entriesOf(current).filter(([key, item]) => key === undefined || isContainer(item) || leaf(item) !== undefined);
    if (entries.length === 0) {
      parts.push(isArray ? "[]" : "{}");
      return;
    }
    parts.push(isArray ? "[" : "{");
    writing.push({ entries, next: 0, close: isArray ? "]" : "}", indent });
  };

  begin(value, "");
  while (writing.length > 0) {
    const top = writing.at(-1)!;
    const inner = gap === "" ? "" : `\n${top.indent}${gap}`;
    if (top.next === top.entries.length) {
      parts.push(gap === "" ? top.close : `\n${top.indent}${top.close}`);
      writing.pop();
      continue;
    }
    const [key, item] = top.entries[top.next]!;
    parts.push((top.next > 0 ? "," : "") + inner + (key === undefined ? "" : JSON.stringify(key) + (gap === "" ? ":" : ": ")));
    top.next++;
    begin(item, top.indent + gap);
  }
  return parts.join("");
}
