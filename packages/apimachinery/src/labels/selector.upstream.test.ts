/**
 * Port of k8s.io/apimachinery/pkg/labels/selector_test.go (Apache-2.0): TestSelectorParse,
 * TestDeterministicParse, TestEverything, TestSelectorMatches, TestRequirementConstructor (through
 * the string grammar), TestRequirementSelectorMatching and TestSetSelectorParser's rows, with
 * upstream's strings and label sets.
 */
import { describe, expect, it } from "vitest";
import { EVERYTHING_LABELS, formatLabelSelector, LabelSelectorParseError, parseLabelSelector } from "./selector.js";

describe("apimachinery TestSelectorParse", () => {
  it.each(["x=a,y=b,z=c", "", "x!=a,y=b", "x=", "x= ", "x=,z= ", "x= ,z= ", "!x", "x>1", "x>1,z<5"])(
    "%j parses and restrings without spaces",
    (text) => {
      expect(formatLabelSelector(parseLabelSelector(text))).toBe(text.replaceAll(" ", ""));
    },
  );

  it.each(["x=a||y=b", "x==a==b", "!x=a", "x<a"])("%j is refused", (text) => {
    expect(() => parseLabelSelector(text)).toThrow(LabelSelectorParseError);
  });
});

describe("apimachinery TestDeterministicParse", () => {
  it("matches the same sets whatever the order of its requirements", () => {
    const a = parseLabelSelector("x=a,a=x");
    const b = parseLabelSelector("a=x,x=a");
    for (const labels of [{ x: "a", a: "x" }, { x: "a" }, { a: "x" }, {}]) expect(a.matches(labels)).toBe(b.matches(labels));
  });
});

describe("apimachinery TestEverything", () => {
  it("matches everything and is empty", () => {
    expect(EVERYTHING_LABELS.matches({ x: "y" })).toBe(true);
    expect(EVERYTHING_LABELS.empty).toBe(true);
  });
});

describe("apimachinery TestSelectorMatches", () => {
  const labelset = { foo: "bar", baz: "blah" };
  it.each<[string, Record<string, string>, boolean]>([
    ["", { x: "y" }, true],
    ["x=y", { x: "y" }, true],
    ["x=y,z=w", { x: "y", z: "w" }, true],
    ["x!=y,z!=w", { x: "z", z: "a" }, true],
    ["notin=in", { notin: "in" }, true],
    ["x", { x: "z" }, true],
    ["!x", { y: "z" }, true],
    ["x>1", { x: "2" }, true],
    ["x<1", { x: "0" }, true],
    ["x=z", {}, false],
    ["x=y", { x: "z" }, false],
    ["x=y,z=w", { x: "w", z: "w" }, false],
    ["x!=y,z!=w", { x: "z", z: "w" }, false],
    ["x", { y: "z" }, false],
    ["!x", { x: "z" }, false],
    ["x>1", { x: "0" }, false],
    ["x<1", { x: "2" }, false],
    ["foo=bar", labelset, true],
    ["baz=blah", labelset, true],
    ["foo=bar,baz=blah", labelset, true],
    ["foo=blah", labelset, false],
    ["baz=bar", labelset, false],
    ["foo=bar,foobar=bar,baz=blah", labelset, false],
  ])("%j on %j: %s", (text, labels, want) => {
    expect(parseLabelSelector(text).matches(labels)).toBe(want);
  });
});

describe("apimachinery TestRequirementConstructor (as selector strings)", () => {
  it.each<[string, boolean]>([
    ["x in ()", true], // upstream's parser reads "()" as the one value "", so only NewRequirement refuses an empty set
    ["x in (foo)", true],
    ["x notin (foo)", true],
    ["x", true],
    ["!x", true],
    ["1foo in (bar)", true],
    ["1234 in (bar)", true],
    ["y>1", true],
    ["z<6", true],
    ["foo>bar", false],
    ["barz<blah", false],
    [`${"a".repeat(254)}`, false], // breaks the DNS rule that len(key) <= 253
  ])("%j parses: %s", (text, success) => {
    if (success) expect(() => parseLabelSelector(text)).not.toThrow();
    else expect(() => parseLabelSelector(text)).toThrow(LabelSelectorParseError);
  });
});

describe("apimachinery TestRequirementSelectorMatching", () => {
  it.each<[Record<string, string>, string, boolean]>([
    [{ x: "foo", y: "baz" }, "x in (foo),y notin (alpha)", true],
    [{ x: "foo", y: "baz" }, "x in (foo),y in (alpha)", false],
    [{ y: "" }, "x notin (),y", true],
    [{ y: "" }, "!x,y", true],
    [{ y: "" }, "x notin (),!y", false],
    [{ y: "baz" }, "x in ()", false],
    [{ z: "2" }, "z>1", true],
    [{ z: "v2" }, "z>1", false],
  ])("%j against %j: %s", (labels, text, want) => {
    expect(parseLabelSelector(text).matches(labels)).toBe(want);
  });
});

describe("apimachinery TestSetSelectorParser", () => {
  it.each<[string, Record<string, string>, boolean]>([
    ["\rx", { x: "" }, true],
    ["this-is-a-dns.domain.com/key-with-dash", { "this-is-a-dns.domain.com/key-with-dash": "v" }, true],
    ["this-is-another-dns.domain.com/key-with-dash in (so,what)", { "this-is-another-dns.domain.com/key-with-dash": "what" }, true],
    ["0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)", { "0.1.2.domain/99": "tick.tack.clock" }, false],
    ["foo  in\t (abc)", { foo: "abc" }, true],
    ["x notin\n (abc)", { x: "abc" }, false],
    ["x  notin\t\t\t(abc,def)", { x: "ghi" }, true],
    ["x in (abc,)", { x: "" }, true],
    ["x in ()", { x: "" }, true],
    ["x notin (abc,def),bar,z in (),w", { bar: "", w: "", z: "" }, true],
    ["x,y in (a)", { x: "", y: "a" }, true],
    ["x=a", { x: "a" }, true],
    ["x>1", { x: "2" }, true],
    ["x<7", { x: "2" }, true],
    ["x=a,y!=b", { x: "a", y: "c" }, true],
  ])("%j parses and matches %j: %s", (text, labels, want) => {
    expect(parseLabelSelector(text).matches(labels)).toBe(want);
  });
});
