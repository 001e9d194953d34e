/**
 * The syntax error Go's encoding/json reports for a body JSON.parse refused, in its words
 * (`invalid character '}' looking for beginning of object key string`, `unexpected end of JSON
 * input`), since clients and tests match upstream's messages. Mirrors the states of Go's
 * scanner (encoding/json/scanner.go); runs only on the error path. Iterative, so any nesting is safe.
 */

/** Go's scanner refuses deeper nesting (encoding/json's maxNestingDepth). */
export const GO_JSON_MAX_DEPTH = 10_000;

type Step = "value" | "keyOrEnd" | "key" | "colon" | "objectNext" | "arrayNext" | "end";

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const ESCAPES = new Set([...'"\\/bfnrt'].map((c) => c.charCodeAt(0)));
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** Go's quoteChar: the byte in single quotes as strconv.Quote spells the rune of that byte value. */
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return "'\"'";
  const named: Record<number, string> = { 7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r", 0x5c: "\\\\" };
  const special = named[c];
  if (special !== undefined) return `'${special}'`;
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, "0")}'`;
  if ((c >= 0x80 && c <= 0xa0) || c === 0xad) return `'\\u00${c.toString(16).padStart(2, "0")}'`;
  return `'${String.fromCharCode(c)}'`;
}

function invalid(c: number, context: string): string {
  return `invalid character ${quoteChar(c)} ${context}`;
}

/** Go's message for the first syntax error in `text`, or undefined when Go would accept it. */
export function goJsonSyntaxError(text: string): string | undefined {
  const bytes = Buffer.from(text, "utf8");
  const containers: number[] = []; // 0x7b for objects, 0x5b for arrays
  let step: Step = "value";
  let i = 0;
  const afterValue = (): Step => (containers.length === 0 ? "end" : containers[containers.length - 1] === 0x7b ? "objectNext" : "arrayNext");
  while (i < bytes.length) {
    const c = bytes[i] as number;
    if (WHITESPACE.has(c)) {
      i++;
      continue;
    }
    switch (step) {
      case "end":
        return invalid(c, "after top-level value");
      case "colon":
        if (c !== 0x3a) return invalid(c, "after object key");
        step = "value";
        i++;
        continue;
      case "objectNext":
        if (c === 0x2c) step = "key";
        else if (c === 0x7d) {
          containers.pop();
          step = afterValue();
        } else return invalid(c, "after object key:value pair");
        i++;
        continue;
      case "arrayNext":
        if (c === 0x2c) step = "value";
        else if (c === 0x5d) {
          containers.pop();
          step = afterValue();
        } else return invalid(c, "after array element");
        i++;
        continue;
      case "keyOrEnd":
      case "key":
        if (step === "keyOrEnd" && c === 0x7d) {
          containers.pop();
          step = afterValue();
          i++;
          continue;
        }
        if (c !== 0x22) return invalid(c, "looking for beginning of object key string");
        {
          const scanned = scanString(bytes, i);
          if (typeof scanned === "string") return scanned;
          i = scanned;
        }
        step = "colon";
        continue;
      case "value": {
        if (c === 0x5d && containers[containers.length - 1] === 0x5b && bytes[lastNonSpace(bytes, i)] === 0x5b) {
          containers.pop();
          step = afterValue();
          i++;
          continue;
        }
        if (c === 0x7b || c === 0x5b) {
          containers.push(c);
          if (containers.length > GO_JSON_MAX_DEPTH) return "exceeded max depth";
          step = c === 0x7b ? "keyOrEnd" : "value";
          i++;
          continue;
        }
        const scanned = c === 0x22 ? scanString(bytes, i) : c === 0x2d || isDigit(c) ? scanNumber(bytes, i) : scanLiteral(bytes, i);
        if (typeof scanned === "string") return scanned;
        i = scanned;
        step = afterValue();
        continue;
      }
    }
  }
  return step === "end" ? undefined : "unexpected end of JSON input";
}

/** The index of the last non-whitespace byte before `i` (an empty array's `[`). */
function lastNonSpace(bytes: Buffer, i: number): number {
  let j = i - 1;
  while (j >= 0 && WHITESPACE.has(bytes[j] as number)) j--;
  return j;
}

const END = "unexpected end of JSON input";

function scanString(bytes: Buffer, start: number): number | string {
  let i = start + 1;
  while (i < bytes.length) {
    const c = bytes[i] as number;
    if (c === 0x22) return i + 1;
    if (c < 0x20) return invalid(c, "in string literal");
    if (c === 0x5c) {
      const e = bytes[i + 1];
      if (e === undefined) return END;
      if (e === 0x75) {
        for (let k = 2; k < 6; k++) {
          const h = bytes[i + k];
          if (h === undefined) return END;
          if (!isHex(h)) return invalid(h, "in \\u hexadecimal character escape");
        }
        i += 6;
        continue;
      }
      if (!ESCAPES.has(e)) return invalid(e, "in string escape code");
      i += 2;
      continue;
    }
    i++;
  }
  return END;
}

function scanNumber(bytes: Buffer, start: number): number | string {
  let i = start;
  if (bytes[i] === 0x2d) {
    i++;
    const c = bytes[i];
    if (c === undefined) return END;
    if (!isDigit(c)) return invalid(c, "in numeric literal");
  }
  if (bytes[i] === 0x30) i++;
  else while (i < bytes.length && isDigit(bytes[i] as number)) i++;
  if (bytes[i] === 0x2e) {
    i++;
    const c = bytes[i];
    if (c === undefined) return END;
    if (!isDigit(c)) return invalid(c, "after decimal point in numeric literal");
    while (i < bytes.length && isDigit(bytes[i] as number)) i++;
  }
  if (bytes[i] === 0x65 || bytes[i] === 0x45) {
    i++;
    if (bytes[i] === 0x2b || bytes[i] === 0x2d) i++;
    const c = bytes[i];
    if (c === undefined) return END;
    if (!isDigit(c)) return invalid(c, "in exponent of numeric literal");
    while (i < bytes.length && isDigit(bytes[i] as number)) i++;
  }
  return i;
}

const LITERALS: Record<number, string> = { 0x74: "true", 0x66: "false", 0x6e: "null" };

function scanLiteral(bytes: Buffer, start: number): number | string {
  const first = bytes[start] as number;
  const word = LITERALS[first];
  if (word === undefined) return invalid(first, "looking for beginning of value");
  for (let k = 1; k < word.length; k++) {
    const c = bytes[start + k];
    if (c === undefined) return END;
    if (c !== word.charCodeAt(k)) return invalid(c, `in literal ${word} (expecting ${quoteChar(word.charCodeAt(k))})`);
  }
  return start + word.length;
}
