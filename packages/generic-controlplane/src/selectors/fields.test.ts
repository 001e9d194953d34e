import { describe, expect, it } from "vitest";
import { parseFieldSelector } from "./fields.js";

const fields = { "metadata.name": "demo", "metadata.namespace": "default", type: "Opaque" };
const supported = Object.keys(fields);

describe("parseFieldSelector", () => {
  it.each<[string, boolean]>([
    ["", true],
    ["metadata.name=demo", true],
    ["metadata.name==demo", true],
    ["metadata.name!=demo", false],
    ["metadata.name=other", false],
    ["metadata.name=demo,metadata.namespace=default", true],
    ["metadata.name=demo,metadata.namespace!=default", false],
    ["type!=kubernetes.io/tls", true],
    ["type=", false],
  ])("%j matches: %s", (selector, expected) => {
    expect(parseFieldSelector(selector, supported).matches(fields)).toBe(expected);
  });

  it("unescapes values", () => {
    const selector = parseFieldSelector("metadata.name=a\\,b\\=c\\\\d");
    expect(selector.requirements).toEqual([{ field: "metadata.name", operator: "=", value: "a,b=c\\d" }]);
    expect(selector.requiredValue("metadata.name")).toBe("a,b=c\\d");
  });

  it.each<[string, string]>([
    ["spec.x=1", "field label not supported: spec.x"],
    ["metadata.name", "invalid selector: 'metadata.name'; can't understand 'metadata.name'"],
    ["metadata.name=a\\x", "invalid field selector: invalid escape sequence: \\x"],
    ["metadata.name=a=b", "invalid field selector: unescaped character in value: 61"],
  ])("%j → 400 %s", (selector, message) => {
    expect(() => parseFieldSelector(selector, supported)).toThrow(expect.objectContaining({ code: "BadRequest", message }) as Error);
  });
});
