/**
 * Go encoding/json's syntax errors (its scanner's `checkValid`), so a malformed body is refused in
 * the words a kube-apiserver uses — `invalid character '}' looking for beginning of object key
 * string`, `unexpected end of JSON input` — instead of JavaScript's. Only runs on a body
 * JSON.parse already refused, so it costs nothing on the common path.
 */

/** Go's decoder refuses nesting deeper than this (`exceeded max depth`). */
export const GO_JSON_MAX_DEPTH = 10_000;

const enum Container {
  ObjectKey,
  ObjectValue,
  ArrayValue,
}

type Step = (c: number) => Step | undefined;

/** strconv.Quote's short escapes. */
const GO_ESCAPES: ReadonlyMap<number, string> = new Map([
  [0x07, "\\a"],
  [0x08, "\\b"],
  [0x0c, "\\f"],
  [0x0a, "\\n"],
  [0x0d, "\\r"],
  [0x09, "\\t"],
  [0x0b, "\\v"],
  [0x5c, "\\\\"],
]);

/** Go's `quoteChar`: the offending byte as a Go character literal (strconv.Quote of it as a rune). */
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return "'\"'";
  const escape = GO_ESCAPES.get(c);
  if (escape !== undefined) return `'${escape}'`;
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, "0")}'`;
  if ((c >= 0x80 && c <= 0x9f) || c === 0xad) return `'\\u00${c.toString(16)}'`;
  return `'${String.fromCharCode(c)}'`;
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

class SyntaxFailure extends Error {}

/**
 * Go's message for the first syntax error of `body`, or undefined when Go's scanner accepts it
 * (nesting deeper than Go allows is an error too, `exceeded max depth`).
 */
export function goJsonSyntaxError(body: Uint8Array): string | undefined {
  const stack: Container[] = [];
  let ended = false;
  const fail = (c: number, context: string): never => {
    throw new SyntaxFailure(`invalid character ${quoteChar(c)} ${context}`);
  };
  const push = (container: Container): void => {
    stack.push(container);
    if (stack.length > GO_JSON_MAX_DEPTH) throw new SyntaxFailure("exceeded max depth");
  };

  const endTop: Step = (c) => {
    if (!isSpace(c)) fail(c, "after top-level value");
    return endTop;
  };
  const endValue: Step = (c) => {
    const top = stack.length - 1;
    if (top < 0) {
      ended = true;
      return endTop(c);
    }
    if (isSpace(c)) return endValue;
    switch (stack[top]) {
      case Container.ObjectKey:
        if (c === 0x3a) {
          stack[top] = Container.ObjectValue;
          return beginValue;
        }
        return fail(c, "after object key");
      case Container.ObjectValue:
        if (c === 0x2c) {
          stack[top] = Container.ObjectKey;
          return beginString;
        }
        if (c === 0x7d) {
          stack.pop();
          return stack.length === 0 ? ((ended = true), endTop) : endValue;
        }
        return fail(c, "after object key:value pair");
      default:
        if (c === 0x2c) return beginValue;
        if (c === 0x5d) {
          stack.pop();
          return stack.length === 0 ? ((ended = true), endTop) : endValue;
        }
        return fail(c, "after array element");
    }
  };
  const inString: Step = (c) => {
    if (c === 0x22) return endValue;
    if (c === 0x5c) return inStringEscape;
    if (c < 0x20) fail(c, "in string literal");
    return inString;
  };
  const hexDigit =
    (remaining: number): Step =>
    (c) => {
      if (!isHex(c)) fail(c, "in \\u hexadecimal character escape");
      return remaining === 1 ? inString : hexDigit(remaining - 1);
    };
  const inStringEscape: Step = (c) => {
    if ([0x62, 0x66, 0x6e, 0x72, 0x74, 0x5c, 0x2f, 0x22].includes(c)) return inString;
    if (c === 0x75) return hexDigit(4);
    return fail(c, "in string escape code");
  };
  const exponentDigits: Step = (c) => (isDigit(c) ? exponentDigits : endValue(c));
  const exponentSign: Step = (c) => {
    if (isDigit(c)) return exponentDigits;
    return fail(c, "in exponent of numeric literal");
  };
  const exponent: Step = (c) => (c === 0x2b || c === 0x2d ? exponentSign : exponentSign(c));
  const fractionDigits: Step = (c) => {
    if (isDigit(c)) return fractionDigits;
    if (c === 0x65 || c === 0x45) return exponent;
    return endValue(c);
  };
  const decimalPoint: Step = (c) => {
    if (isDigit(c)) return fractionDigits;
    return fail(c, "after decimal point in numeric literal");
  };
  const zero: Step = (c) => {
    if (c === 0x2e) return decimalPoint;
    if (c === 0x65 || c === 0x45) return exponent;
    return endValue(c);
  };
  const integerDigits: Step = (c) => (isDigit(c) ? integerDigits : zero(c));
  const negative: Step = (c) => {
    if (c === 0x30) return zero;
    if (isDigit(c)) return integerDigits;
    return fail(c, "in numeric literal");
  };
  const literal =
    (word: string, at: number): Step =>
    (c) => {
      const expected = word.charCodeAt(at);
      if (c !== expected) fail(c, `in literal ${word} (expecting ${quoteChar(expected)})`);
      return at === word.length - 1 ? endValue : literal(word, at + 1);
    };
  const beginValue: Step = (c) => {
    if (isSpace(c)) return beginValue;
    switch (c) {
      case 0x7b:
        push(Container.ObjectKey);
        return beginStringOrEmpty;
      case 0x5b:
        push(Container.ArrayValue);
        return beginValueOrEmpty;
      case 0x22:
        return inString;
      case 0x2d:
        return negative;
      case 0x30:
        return zero;
      case 0x74:
        return literal("true", 1);
      case 0x66:
        return literal("false", 1);
      case 0x6e:
        return literal("null", 1);
      default:
        if (isDigit(c)) return integerDigits;
        return fail(c, "looking for beginning of value");
    }
  };
  const beginString: Step = (c) => {
    if (isSpace(c)) return beginString;
    if (c === 0x22) return inString;
    return fail(c, "looking for beginning of object key string");
  };
  const beginStringOrEmpty: Step = (c) => {
    if (isSpace(c)) return beginStringOrEmpty;
    if (c === 0x7d) {
      stack.pop();
      return stack.length === 0 ? ((ended = true), endTop) : endValue;
    }
    return beginString(c);
  };
  const beginValueOrEmpty: Step = (c) => {
    if (isSpace(c)) return beginValueOrEmpty;
    if (c === 0x5d) {
      stack.pop();
      return stack.length === 0 ? ((ended = true), endTop) : endValue;
    }
    return beginValue(c);
  };

  try {
    let step: Step = beginValue;
    for (const c of body) step = step(c) as Step;
    // Go ends the input with a space, which completes a top-level number.
    step(0x20);
    return ended ? undefined : "unexpected end of JSON input";
  } catch (error) {
    if (error instanceof SyntaxFailure) return error.message;
    throw error;
  }
}
