import { describe, expect, it } from "vitest";
import { formatLabelSelector, LabelSelectorParseError, parseLabelSelector } from "./selector.js";

const labels = { app: "web", tier: "frontend", version: "3", empty: "" };

describe("parseLabelSelector matching", () => {
  it.each<[string, boolean]>([
    ["", true],
    ["app=web", true],
    ["app==web", true],
    ["app = web", true],
    ["app=db", false],
    ["app!=db", true],
    ["app!=web", false],
    ["missing!=x", true],
    ["app in (web,db)", true],
    ["app in (db)", false],
    ["app notin (db,cache)", true],
    ["app notin (web)", false],
    ["missing notin (web)", true],
    ["app", true],
    ["missing", false],
    ["!missing", true],
    ["!app", false],
    ["app=web,tier=frontend", true],
    ["app=web,tier=backend", false],
    ["app=web, !missing, tier in (frontend)", true],
    ["version>2", true],
    ["version<3", false],
    ["missing>1", false],
    ["empty=", true],
    ["empty in ()", true],
    ["in=x", false],
    ["example.com/key", false],
  ])("%j matches: %s", (selector, expected) => {
    expect(parseLabelSelector(selector).matches(labels)).toBe(expected);
  });

  it("treats missing labels as no labels", () => {
    expect(parseLabelSelector("!a").matches(undefined)).toBe(true);
    expect(parseLabelSelector("a").matches(undefined)).toBe(false);
  });

  it("parses requirements in order with sorted values", () => {
    const selector = parseLabelSelector("b in (z,y),a,!c");
    expect(selector.requirements).toEqual([
      { key: "b", operator: "in", values: ["y", "z"] },
      { key: "a", operator: "exists", values: [] },
      { key: "c", operator: "!", values: [] },
    ]);
    expect(formatLabelSelector(selector)).toBe("b in (y,z),a,!c");
  });
});

describe("parseLabelSelector errors", () => {
  const LABEL_VALUE_RULE =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
  it.each<[string, string]>([
    ["a b", "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
    ["a=b c", "found 'c', expected: ',' or 'end of string'"],
    ["a=b,", "found '', expected: identifier after ','"],
    [",a", "found ',', expected: !, identifier, or 'end of string'"],
    ["a in b", "unable to parse requirement: found 'b' expected: '('"],
    ["a in (b", "unable to parse requirement: found '', expected: ',' or ')'"],
    ["a=-x", `unable to parse requirement: values[0][a]: Invalid value: "-x": ${LABEL_VALUE_RULE}`],
    ["-a", expect.stringMatching(/^unable to parse requirement: <nil>: Invalid value: "-a": name part must consist of/) as string],
    ["!", "unable to parse requirement: found '', expected: identifier"],
    ["a>x", `unable to parse requirement: values[0]: Invalid value: "x": for 'Gt', 'Lt' operators, the value must be an integer`],
  ])("%j → %s", (selector, message) => {
    let thrown: unknown;
    try {
      parseLabelSelector(selector);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(LabelSelectorParseError);
    expect(thrown).toMatchObject({ message });
  });
});
