import { describe, expect, it } from "vitest";
import { compileRegexp, regexpError, RegexpSyntaxError } from "./regexp.js";

describe("compileRegexp", () => {
  it("refuses what Go's regexp refuses, in Go's words", () => {
    expect(regexpError("(a)\\1")).toBe("error parsing regexp: invalid escape sequence: `\\1`");
    expect(regexpError("a(?=b)")).toBe("error parsing regexp: invalid or unsupported Perl syntax: `(?=`");
    expect(regexpError(")")).toBe("error parsing regexp: unexpected ): `)`");
    expect(regexpError("x++")).toBe("error parsing regexp: invalid nested repetition operator: `++`");
    expect(regexpError("a{1001}")).toBe("error parsing regexp: invalid repeat count: `{1001}`");
    expect(() => compileRegexp("(a)\\1")).toThrow(RegexpSyntaxError);
    expect(() => compileRegexp("(a)\\1")).toThrow("error parsing regexp: invalid escape sequence: `\\1`");
    expect(regexpError("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")).toBeUndefined();
  });

  it("matches in linear time where a backtracking engine takes exponential time", () => {
    // JavaScript's RegExp needs about 2^n steps here: 20 s at n = 29, never finishing at n = 100 000.
    const text = `${"a".repeat(100_000)}!`;
    const regexp = compileRegexp("(a+)+$");
    expect(regexp.test(text)).toBe(false);
    expect(regexp.find(text)).toBe("");
    expect(regexp.findAll(text, -1)).toEqual([]);
  });

  it("finds as Go's FindString and FindAllString do", () => {
    const digits = compileRegexp("[0-9]+");
    expect(digits.find("abc 123 def 456")).toBe("123");
    expect(digits.find("abc")).toBe("");
    expect(digits.findAll("abc 123 def 456", -1)).toEqual(["123", "456"]);
    expect(digits.findAll("abc 123 def 456", 1)).toEqual(["123"]);
    expect(digits.findAll("abc 123 def 456", 0)).toEqual([]);
    expect(digits.findAll("abc", -1)).toEqual([]);
    // An empty match right after a match is skipped (Go), not reported (Java, JavaScript).
    expect(compileRegexp("a*").findAll("baaac", -1)).toEqual(["", "aaa", ""]);
    expect(compileRegexp(".").findAll("a😀b", -1)).toEqual(["a", "😀", "b"]);
  });

  it("matches unanchored, as MatchString does", () => {
    expect(compileRegexp("b+").test("abbc")).toBe(true);
    expect(compileRegexp("^b+$").test("abbc")).toBe(false);
    expect(compileRegexp("(?i)ABC").test("xabcx")).toBe(true);
  });

  it("answers the same for a pattern seen before, refused or not", () => {
    expect(compileRegexp("[0-9]+")).toBe(compileRegexp("[0-9]+"));
    expect(regexpError("(")).toBe(regexpError("("));
    expect(regexpError("(")).toBe("error parsing regexp: missing closing ): `(`");
  });
});
