import { describe, expect, it } from "vitest";
import type { JSONSchemaProps } from "../schema/types.js";
import { formatFieldError } from "../validation/field-errors.js";
import { compileErrors } from "./compile-errors.js";
import { compileValidationRules } from "./validator.js";

/**
 * Port of the "stdlib regex functions" case of upstream's
 * staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/validation_test.go
 * (`TestValidationExpressions`): the same object, schema, rules and expected errors. Upstream
 * reports a rule that does not compile when the CRD is written, as `compileErrors` does here.
 */

const schema: JSONSchemaProps = { type: "object", properties: { str: { type: "string" } } };
const obj = { str: "this is a 123 string 456" };

function withRule(rule: string): JSONSchemaProps {
  return { ...schema, "x-kubernetes-validations": [{ rule }] };
}

const valid = [
  "self.str.find('[0-9]+') == '123'",
  "self.str.find('[0-9]+') != '456'",
  "self.str.find('xyz') == ''",

  "self.str.findAll('[0-9]+') == ['123', '456']",
  "self.str.findAll('[0-9]+', 0) == []",
  "self.str.findAll('[0-9]+', 1) == ['123']",
  "self.str.findAll('[0-9]+', 2) == ['123', '456']",
  "self.str.findAll('[0-9]+', 3) == ['123', '456']",
  "self.str.findAll('[0-9]+', -1) == ['123', '456']",
  "self.str.findAll('xyz') == []",
  "self.str.findAll('xyz', 1) == []",
];

// Invalid regex with a string constant regex pattern is compile time error.
const errors: Record<string, string> = {
  "self.str.find(')') == ''": "program instantiation failed: error parsing regexp: unexpected ): `)`",
  "self.str.findAll(')') == []": "program instantiation failed: error parsing regexp: unexpected ): `)`",
  "self.str.findAll(')', 1) == []": "program instantiation failed: error parsing regexp: unexpected ): `)`",
  "self.str.matches('x++')": "invalid matches argument",
};

describe("stdlib regex functions (validation_test.go)", () => {
  for (const rule of valid) {
    it(rule, () => {
      expect(compileErrors(withRule(rule), "root").map(formatFieldError)).toEqual([]);
      expect(compileValidationRules(withRule(rule))!(obj, undefined).map(formatFieldError)).toEqual([]);
    });
  }

  for (const [rule, expected] of Object.entries(errors)) {
    it(`${rule} is refused`, () => {
      const found = compileErrors(withRule(rule), "root");
      expect(found).toHaveLength(1);
      expect(found[0]).toMatchObject({ type: "FieldValueInvalid", field: "root.x-kubernetes-validations[0].rule" });
      expect(found[0]!.detail).toContain(expected);
    });
  }
});

describe("patterns Go's regexp refuses", () => {
  it("refuse a backreference in find() when the rule is compiled, in Go's words", () => {
    const found = compileErrors(withRule("self.str.find('(a)\\\\1') == ''"), "root");
    expect(found.map((e) => [e.field, e.detail])).toEqual([
      ["root.x-kubernetes-validations[0].rule", "program instantiation failed: error parsing regexp: invalid escape sequence: `\\1`"],
    ]);
  });
});
