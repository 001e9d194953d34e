// Port of the syntax-error cases of Go's encoding/json decode_test.go (unmarshalTests: the first five
// below, with Go's messages), plus one case per other error state of encoding/json/scanner.go.
import { describe, expect, it } from "vitest";
import { goJsonSyntaxError } from "./go-json-syntax.js";

describe("goJsonSyntaxError", () => {
  it.each([
    ['{"X": "foo", "Y"}', "invalid character '}' after object key"],
    ['[1, 2, 3+]', "invalid character '+' after array element"],
    ['{"X":12x}', "invalid character 'x' after object key:value pair"],
    ['[2, 3', "unexpected end of JSON input"],
    ['{"F3": -}', "invalid character '}' in numeric literal"],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ['{"metadata":{"name":"x"},}', "invalid character '}' looking for beginning of object key string"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ["{'a':1}", "invalid character '\\'' looking for beginning of object key string"],
    ['{"a":tru}', "invalid character '}' in literal true (expecting 'e')"],
    ['{"a":nul', "unexpected end of JSON input"],
    ['{"a":"\\q"}', "invalid character 'q' in string escape code"],
    ['{"a":"\\u12x4"}', "invalid character 'x' in \\u hexadecimal character escape"],
    ['{"a":"x\ny"}', "invalid character '\\n' in string literal"],
    ['{"a":1.}', "invalid character '}' after decimal point in numeric literal"],
    ['{"a":1e}', "invalid character '}' in exponent of numeric literal"],
    ["[1,]", "invalid character ']' looking for beginning of value"],
    ["{} x", "invalid character 'x' after top-level value"],
    ["01", "invalid character '1' after top-level value"],
    ["\u00e9", "invalid character 'Ã' looking for beginning of value"],
  ])("%j is %j", (text, message) => {
    expect(goJsonSyntaxError(text)).toBe(message);
  });

  it.each(['{"a":[],"b":{},"c":[1,-0.5e+3,"\\u00e9",true,false,null]}', " [ ] ", '"x"'])("accepts %j", (text) => {
    expect(goJsonSyntaxError(text)).toBeUndefined();
    expect(() => JSON.parse(text) as unknown).not.toThrow();
  });

  it("refuses nesting beyond Go's 10,000 levels and accepts 10,000", () => {
    expect(goJsonSyntaxError("[".repeat(10_001) + "]".repeat(10_001))).toBe("exceeded max depth");
    expect(goJsonSyntaxError("[".repeat(10_000) + "]".repeat(10_000))).toBeUndefined();
  });
});
