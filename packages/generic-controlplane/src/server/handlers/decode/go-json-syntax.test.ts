// Cases from Go's encoding/json scanner_test.go (checkValid and scanner.eof's
// errors, as TestIndentErrors and decode_test.go's syntax-error cases assert them).
import { describe, expect, it } from "vitest";
import { GO_JSON_MAX_DEPTH, goJsonSyntaxError } from "./go-json-syntax.js";

const syntaxError = (text: string): string | undefined => goJsonSyntaxError(Buffer.from(text, "utf8"));

describe("goJsonSyntaxError", () => {
  it.each([
    ["{}", undefined],
    [' {"a": [1, -2.5e+3, true, false, null, "x\\u00e9\\n"]} ', undefined],
    ["0", undefined],
    ["123", undefined],
    ['"s"', undefined],
  ])("accepts what Go accepts: %s", (text, expected) => {
    expect(syntaxError(text)).toBe(expected);
  });

  it.each([
    ['{"metadata":{"name":"x",}}', "invalid character '}' looking for beginning of object key string"],
    ['{"metadata":{"name":"x"', "unexpected end of JSON input"],
    ["", "unexpected end of JSON input"],
    ["{1:2}", "invalid character '1' looking for beginning of object key string"],
    ['{"a" "b"}', "invalid character '\"' after object key"],
    ['{"a":1 "b":2}', "invalid character '\"' after object key:value pair"],
    ["[1 2]", "invalid character '2' after array element"],
    ["[1,]", "invalid character ']' looking for beginning of value"],
    ["{} x", "invalid character 'x' after top-level value"],
    ["01", "invalid character '1' after top-level value"],
    ["-x", "invalid character 'x' in numeric literal"],
    ["1.e5", "invalid character 'e' after decimal point in numeric literal"],
    // Go ends the input with a space: an unfinished literal reports that space.
    ["1e+", "invalid character ' ' in exponent of numeric literal"],
    ["1ex", "invalid character 'x' in exponent of numeric literal"],
    ["tru", "invalid character ' ' in literal true (expecting 'e')"],
    ["trux", "invalid character 'x' in literal true (expecting 'e')"],
    ["nul1", "invalid character '1' in literal null (expecting 'l')"],
    ['"a\tb"', "invalid character '\\t' in string literal"],
    ['"\\q"', "invalid character 'q' in string escape code"],
    ['"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"],
    ["'a'", "invalid character '\\'' looking for beginning of value"],
    ["\u0001", "invalid character '\\x01' looking for beginning of value"],
  ])("reports Go's error for %j", (text, expected) => {
    expect(syntaxError(text)).toBe(expected);
  });

  it("allows Go's nesting limit and refuses one level more", () => {
    expect(syntaxError("[".repeat(GO_JSON_MAX_DEPTH) + "]".repeat(GO_JSON_MAX_DEPTH))).toBeUndefined();
    expect(syntaxError("[".repeat(GO_JSON_MAX_DEPTH + 1) + "]".repeat(GO_JSON_MAX_DEPTH + 1))).toBe("exceeded max depth");
  });
});
