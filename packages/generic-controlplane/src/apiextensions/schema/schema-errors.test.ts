import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { JSONSchemaProps } from "../../schema/types.js";
import { formatFieldError } from "../../validation/field-errors.js";
import { schemaErrors } from "./index.js";

/**
 * CRD-time schema checks with the messages of apiextensions' `ValidateCustomResourceDefinitionOpenAPISchema`
 * and `defaulting.ValidateDefaults` (cases after upstream's validation_test.go and the defaulting integration test).
 */

const ROOT = "spec.versions[0].schema.openAPIV3Schema";

function errorsFor(yaml: string): string[] {
  return schemaErrors(parse(yaml) as JSONSchemaProps, ROOT).map(formatFieldError);
}

describe("schemaErrors: keywords CRDs do not support", () => {
  it.each<[string, string, string[]]>([
    [
      "uniqueItems",
      "type: object\nproperties:\n  a: {type: array, items: {type: string}, uniqueItems: true}",
      [`${ROOT}.properties[a].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`],
    ],
    [
      "$ref",
      "type: object\nproperties:\n  a: {type: string, $ref: '#/definitions/x'}",
      [`${ROOT}.properties[a].$ref: Forbidden: $ref is not supported`],
    ],
    [
      "type null",
      "type: object\nproperties:\n  a: {type: 'null'}",
      [
        `${ROOT}.properties[a].type: Unsupported value: "null": supported values: "array", "boolean", "integer", "number", "object", "string"`,
        `${ROOT}.properties[a].type: Forbidden: type cannot be set to null, use nullable as an alternative`,
      ],
    ],
    [
      "properties with additionalProperties",
      "type: object\nproperties:\n  a:\n    type: object\n    properties: {b: {type: string}}\n    additionalProperties: {type: string}",
      [`${ROOT}.properties[a].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`],
    ],
    [
      "preserve-unknown-fields false",
      "type: object\nproperties:\n  a: {type: object, x-kubernetes-preserve-unknown-fields: false}",
      [`${ROOT}.properties[a].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`],
    ],
    ["nullable root", "type: object\nnullable: true", [`${ROOT}.nullable: Forbidden: nullable cannot be true at the root`]],
  ])("%s", (_name, yaml, expected) => {
    expect(errorsFor(yaml)).toEqual(expected);
  });
});

describe("schemaErrors: list and map types", () => {
  it.each<[string, string, string[]]>([
    [
      "list-type on a non-array",
      "type: object\nproperties:\n  a: {type: string, x-kubernetes-list-type: set}",
      [`${ROOT}.properties[a].type: Invalid value: "string": must be array if x-kubernetes-list-type is specified`],
    ],
    [
      "unknown list-type",
      "type: object\nproperties:\n  a: {type: array, items: {type: string}, x-kubernetes-list-type: bag}",
      [`${ROOT}.properties[a].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"`],
    ],
    [
      "map keys without list-type",
      "type: object\nproperties:\n  a: {type: array, items: {type: object, required: [k], properties: {k: {type: string}}}, x-kubernetes-list-map-keys: [k]}",
      [`${ROOT}.properties[a].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty`],
    ],
    [
      "map list without keys",
      "type: object\nproperties:\n  a: {type: array, items: {type: object}, x-kubernetes-list-type: map}",
      [`${ROOT}.properties[a].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`],
    ],
    [
      "map list of strings",
      "type: object\nproperties:\n  a: {type: array, items: {type: string}, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [k]}",
      [`${ROOT}.properties[a].items.type: Invalid value: "string": must be object if parent array's x-kubernetes-list-type is map`],
    ],
    [
      "map key that is no property, or not scalar, or not required",
      `
type: object
properties:
  a:
    type: array
    x-kubernetes-list-type: map
    x-kubernetes-list-map-keys: [k, o, missing]
    items:
      type: object
      properties:
        k: {type: string, nullable: true}
        o: {type: object}
`,
      [
        `${ROOT}.properties[a].items.properties[o].type: Invalid value: "object": must be a scalar type if parent array's x-kubernetes-list-type is map`,
        `${ROOT}.properties[a].x-kubernetes-list-map-keys: Invalid value: ["k","o","missing"]: entries must all be names of item properties`,
        `${ROOT}.properties[a].items.properties[k].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`,
        `${ROOT}.properties[a].items.properties[k].nullable: Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable`,
        `${ROOT}.properties[a].items.properties[o].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`,
      ],
    ],
    [
      "set of granular objects",
      "type: object\nproperties:\n  a: {type: array, x-kubernetes-list-type: set, items: {type: object, x-kubernetes-map-type: granular, properties: {x: {type: string}}}}",
      [
        `${ROOT}.properties[a].items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set`,
      ],
    ],
    [
      "a well-formed map list",
      "type: object\nproperties:\n  a: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [k], items: {type: object, required: [k], properties: {k: {type: string}}}}",
      [],
    ],
  ])("%s", (_name, yaml, expected) => {
    expect(errorsFor(yaml)).toEqual(expected);
  });
});

describe("schemaErrors: defaults", () => {
  it.each<[string, string, string[]]>([
    [
      "a default of the wrong type",
      "type: object\nproperties:\n  spec:\n    type: object\n    properties:\n      replicas: {type: integer, default: many}",
      [`${ROOT}.properties[spec].properties[replicas].default: Invalid value: "string":  in body must be of type integer: "string"`],
    ],
    [
      "a default that breaks a bound",
      "type: object\nproperties:\n  spec:\n    type: object\n    properties:\n      replicas: {type: integer, minimum: 1, default: 0}",
      [`${ROOT}.properties[spec].properties[replicas].default: Invalid value: 0:  in body should be greater than or equal to 1`],
    ],
    [
      "an object default with a field the schema lacks",
      "type: object\nproperties:\n  spec:\n    type: object\n    default: {a: x, b: y}\n    properties:\n      a: {type: string}",
      [`${ROOT}.properties[spec].default: Invalid value: {"a":"x","b":"y"}: must not have unknown fields`],
    ],
    [
      "an object default missing a required field",
      "type: object\nproperties:\n  spec:\n    type: object\n    required: [a]\n    default: {}\n    properties:\n      a: {type: string}",
      [`${ROOT}.properties[spec].default.a: Required value`],
    ],
    [
      "defaults in top-level metadata",
      "type: object\nproperties:\n  metadata:\n    type: object\n    properties:\n      name: {type: string, default: x}",
      [`${ROOT}.properties[metadata].properties[name].default: Forbidden: must not be set in top-level metadata`],
    ],
    [
      "a default map entry of embedded metadata",
      "type: object\nproperties:\n  t:\n    type: object\n    x-kubernetes-embedded-resource: true\n    properties:\n      metadata:\n        type: object\n        properties:\n          labels: {type: object, additionalProperties: {type: string, default: x}}",
      [
        `${ROOT}.properties[t].properties[metadata].properties[labels].additionalProperties.default: Forbidden: must not be set inside additionalProperties applying to object metadata`,
      ],
    ],
    [
      "valid defaults",
      "type: object\nproperties:\n  spec:\n    type: object\n    default: {}\n    properties:\n      replicas: {type: integer, minimum: 1, default: 1}\n      mode: {type: string, enum: [a, b], default: a}",
      [],
    ],
  ])("%s", (_name, yaml, expected) => {
    expect(errorsFor(yaml)).toEqual(expected);
  });

  it("checks defaults only once the schema is structural", () => {
    expect(errorsFor("type: object\nproperties:\n  a: {default: 1}")).toEqual([
      `${ROOT}.properties[a].type: Required value: must not be empty for specified object fields`,
    ]);
  });
});

describe("schemaErrors: x-kubernetes-validations entries", () => {
  it("reports empty rules, bad messages and unknown reasons", () => {
    const yaml = `
type: object
x-kubernetes-validations:
- rule: "  "
- rule: "self.a\\n&& self.b"
- rule: self.a
  message: "  "
- rule: self.a
  reason: FieldValueBogus
`;
    expect(errorsFor(yaml)).toEqual([
      `${ROOT}.x-kubernetes-validations[0].rule: Required value: rule is not specified`,
      `${ROOT}.x-kubernetes-validations[1].message: Required value: message must be specified if rule contains line breaks`,
      `${ROOT}.x-kubernetes-validations[2].message: Invalid value: "  ": message must be non-empty if specified`,
      `${ROOT}.x-kubernetes-validations[3].reason: Unsupported value: "FieldValueBogus": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
    ]);
  });
});

describe("schemaErrors: rules compiled by src/cel", () => {
  it("reports a rule that does not compile", () => {
    const errors = schemaErrors(
      parse("type: object\nproperties:\n  n:\n    type: integer\n    x-kubernetes-validations:\n    - rule: 'self >'\n") as JSONSchemaProps,
      ROOT,
    );
    expect(errors.map((e) => [e.type, e.field])).toEqual([["FieldValueInvalid", `${ROOT}.properties[n].x-kubernetes-validations[0].rule`]]);
  });

  it("does not compile rules of a schema that is not structural", () => {
    const errors = errorsFor("type: object\nproperties:\n  n:\n    x-kubernetes-validations:\n    - rule: self.startsWith('a')\n");
    expect(errors).toEqual([`${ROOT}.properties[n].type: Required value: must not be empty for specified object fields`]);
  });
});
