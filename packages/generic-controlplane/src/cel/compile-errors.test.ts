import { describe, expect, it } from "vitest";
import type { JSONSchemaProps } from "../schema/types.js";
import { formatFieldError } from "../validation/field-errors.js";
import { compileErrors } from "./compile-errors.js";

const ROOT = "spec.validation.openAPIV3Schema";

function specWith(spec: object): JSONSchemaProps {
  return { type: "object", properties: { spec: spec } };
}

function errorsOf(schema: JSONSchemaProps): string[] {
  return compileErrors(schema, ROOT).map(formatFieldError);
}

describe("compileErrors", () => {
  it("accepts well-formed rules", () => {
    expect(
      errorsOf(
        specWith({
          type: "object",
          properties: { a: { type: "integer", maxItems: 3 } },
          "x-kubernetes-validations": [{ rule: "self.a > 0" }],
        }),
      ),
    ).toEqual([]);
  });

  it("reports syntax errors and undeclared references at the rule", () => {
    const errors = compileErrors(
      specWith({ type: "object", "x-kubernetes-validations": [{ rule: "self.a >" }, { rule: "foo == 1" }, { rule: "self.bogus()" }] }),
      ROOT,
    );
    expect(errors.map((e) => [e.type, e.field])).toEqual([
      ["FieldValueInvalid", `${ROOT}.properties[spec].x-kubernetes-validations[0].rule`],
      ["FieldValueInvalid", `${ROOT}.properties[spec].x-kubernetes-validations[1].rule`],
      ["FieldValueInvalid", `${ROOT}.properties[spec].x-kubernetes-validations[2].rule`],
    ]);
    expect(errors[0]?.detail).toMatch(/^compilation failed: ERROR: <input>:1:\d+: Syntax error: /);
    expect(errors[1]?.detail).toBe(
      "compilation failed: ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')\n | foo == 1\n | ^",
    );
    expect(errors[2]?.detail).toContain("undeclared reference to 'bogus' (in container '')");
  });

  it("checks the rule entry itself before compiling", () => {
    expect(
      errorsOf(
        specWith({
          type: "object",
          properties: { a: { type: "string" } },
          "x-kubernetes-validations": [
            { rule: " " },
            { rule: "true", message: "two\nlines" },
            { rule: "true", reason: "FieldValueBogus" },
            { rule: "true", fieldPath: ".b" },
            { rule: "true\n&& true" },
          ],
        }),
      ),
    ).toEqual([
      `${ROOT}.properties[spec].x-kubernetes-validations[0].rule: Required value: rule is not specified`,
      `${ROOT}.properties[spec].x-kubernetes-validations[1].message: Invalid value: "two\\nlines": message must not contain line breaks`,
      `${ROOT}.properties[spec].x-kubernetes-validations[2].reason: Unsupported value: "FieldValueBogus": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
      `${ROOT}.properties[spec].x-kubernetes-validations[3].fieldPath: Invalid value: ".b": fieldPath must be a valid path`,
      `${ROOT}.properties[spec].x-kubernetes-validations[4].message: Required value: message must be specified if rule contains line breaks`,
    ]);
  });

  it("forbids oldSelf under lists whose items cannot be correlated, and optionalOldSelf without oldSelf", () => {
    expect(
      errorsOf(
        specWith({
          type: "object",
          properties: {
            tags: {
              type: "array",
              maxItems: 5,
              items: { type: "string", maxLength: 10, "x-kubernetes-validations": [{ rule: "self == oldSelf" }] },
            },
            name: { type: "string", maxLength: 10, "x-kubernetes-validations": [{ rule: "self != ''", optionalOldSelf: true }] },
          },
        }),
      ),
    ).toEqual([
      `${ROOT}.properties[spec].properties[tags].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within ${ROOT}.properties[spec].properties[tags]`,
      `${ROOT}.properties[spec].properties[name].x-kubernetes-validations[0].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule`,
    ]);
  });

  it("forbids rules whose estimated cost exceeds the budget, and accepts them once bounded", () => {
    const rule = { rule: "self.all(x, self.all(y, x.startsWith(y)))" };
    const unbounded = errorsOf(specWith({ type: "array", items: { type: "string" }, "x-kubernetes-validations": [rule] }));
    expect(unbounded).toContain(
      `${ROOT}.properties[spec].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
    );
    expect(
      errorsOf(specWith({ type: "array", maxItems: 10, items: { type: "string", maxLength: 64 }, "x-kubernetes-validations": [rule] })),
    ).toEqual([]);
  });

  it("multiplies a rule's cost by how often its node can occur", () => {
    const item = { type: "string", "x-kubernetes-validations": [{ rule: "self.contains('a')" }] };
    expect(errorsOf(specWith({ type: "array", items: item }))[0]).toMatch(
      /x-kubernetes-validations\[0\]\.rule: Forbidden: estimated rule cost exceeds budget/,
    );
    expect(errorsOf(specWith({ type: "array", maxItems: 100, items: { ...item, maxLength: 100 } }))).toEqual([]);
  });
});
