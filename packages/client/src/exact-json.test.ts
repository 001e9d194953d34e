// Port of the integer cases of k8s.io/apimachinery/pkg/util/json/json_test.go (TestEvaluateTypes):
// integers that fit int64 decode as int64 and encode back exactly; one past int64 is a float64.
import { describe, expect, it } from "vitest";
import { parseExactJson, stringifyExactJson } from "./exact-json.js";

describe("exact JSON int64 round trip (TestEvaluateTypes)", () => {
  it.each([
    ["0", 0, "0"],
    ["1", 1, "1"],
    ["2147483647", 2147483647, "2147483647"],
    ["-2147483648", -2147483648, "-2147483648"],
    ["9007199254740993", 9007199254740993n, "9007199254740993"],
    ["9223372036854775807", 9223372036854775807n, "9223372036854775807"],
    ["-9223372036854775808", -9223372036854775808n, "-9223372036854775808"],
  ])("%s decodes as an exact integer and encodes back unchanged", (text, value, out) => {
    for (const [wrap, expected] of [
      [(s: string) => `{"data":${s}}`, { data: value }],
      [(s: string) => `[0,${s}]`, [0, value]],
    ] as const) {
      const decoded = parseExactJson(wrap(text));
      expect(decoded).toEqual(expected);
      expect(stringifyExactJson(decoded)).toBe(wrap(out));
    }
  });

  it("decodes an integer one past int64, and an exponent, as float64", () => {
    expect(parseExactJson('{"data":9223372036854775808}')).toEqual({ data: 9223372036854775808 });
    expect(parseExactJson('{"data":1e20}')).toEqual({ data: 1e20 });
  });

  it("indents like JSON.stringify when the value holds bigints", () => {
    expect(stringifyExactJson({ a: [9007199254740993n] }, 2)).toBe('{\n  "a": [\n    9007199254740993\n  ]\n}');
  });
});
