import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { KubeObject } from "../../api/types.js";
import type { JSONSchemaProps } from "../../schema/types.js";
import { formatFieldError, toStatusCauses } from "../../validation/field-errors.js";
import { isDNS1035Label } from "@kubekit/apimachinery";
import { compileSchema } from "./index.js";

/** The errors as apimachinery prints them (`field: body`), deduplicated and sorted like upstream's test compares them. */
function errorsOf(schema: JSONSchemaProps, object: unknown): string[] {
  const errors = compileSchema(schema)
    .validate(object as KubeObject)
    .map(formatFieldError);
  return [...new Set(errors)].sort();
}

function yamlSchema(text: string): JSONSchemaProps {
  return parse(text) as JSONSchemaProps;
}

interface Table {
  name: string;
  schema: JSONSchemaProps;
  objects?: unknown[];
  failing?: Array<[unknown, string[]]>;
}

/** apiextensions-apiserver's `TestValidateCustomResource` (pkg/apiserver/validation), without its CEL rows. */
const upstream: Table[] = [
  {
    name: "!nullable",
    schema: { type: "object", properties: { field: { type: "object", nullable: false } } },
    objects: [{}, { field: {} }],
    failing: [
      [{ field: "foo" }, [`field: Invalid value: "string": field in body must be of type object: "string"`]],
      [{ field: 42 }, [`field: Invalid value: "integer": field in body must be of type object: "integer"`]],
      [{ field: true }, [`field: Invalid value: "boolean": field in body must be of type object: "boolean"`]],
      [{ field: 1.2 }, [`field: Invalid value: "number": field in body must be of type object: "number"`]],
      [{ field: [] }, [`field: Invalid value: "array": field in body must be of type object: "array"`]],
      [{ field: null }, [`field: Invalid value: "null": field in body must be of type object: "null"`]],
    ],
  },
  {
    name: "nullable",
    schema: { type: "object", properties: { field: { type: "object", nullable: true } } },
    objects: [{}, { field: {} }, { field: null }],
    failing: [
      [{ field: "foo" }, [`field: Invalid value: "string": field in body must be of type object: "string"`]],
      [{ field: 42 }, [`field: Invalid value: "integer": field in body must be of type object: "integer"`]],
      [{ field: true }, [`field: Invalid value: "boolean": field in body must be of type object: "boolean"`]],
      [{ field: 1.2 }, [`field: Invalid value: "number": field in body must be of type object: "number"`]],
      [{ field: [] }, [`field: Invalid value: "array": field in body must be of type object: "array"`]],
    ],
  },
  {
    name: "nullable and no type",
    schema: { type: "object", properties: { field: { nullable: true } } },
    objects: [{}, { field: {} }, { field: null }, { field: "foo" }, { field: 42 }, { field: true }, { field: 1.2 }, { field: [] }],
  },
  {
    name: "x-kubernetes-int-or-string",
    schema: { type: "object", properties: { field: { "x-kubernetes-int-or-string": true } } },
    objects: [{}, { field: 42 }, { field: "foo" }],
    failing: [
      [{ field: null }, [`field: Invalid value: "null": field in body must be of type integer,string: "null"`]],
      [{ field: true }, [`field: Invalid value: "boolean": field in body must be of type integer,string: "boolean"`]],
      [{ field: 1.2 }, [`field: Invalid value: "number": field in body must be of type integer,string: "number"`]],
      [{ field: {} }, [`field: Invalid value: "object": field in body must be of type integer,string: "object"`]],
      [{ field: [] }, [`field: Invalid value: "array": field in body must be of type integer,string: "array"`]],
    ],
  },
  {
    name: "nullable and x-kubernetes-int-or-string",
    schema: { type: "object", properties: { field: { nullable: true, "x-kubernetes-int-or-string": true } } },
    objects: [{}, { field: 42 }, { field: "foo" }, { field: null }],
    failing: [
      [{ field: true }, [`field: Invalid value: "boolean": field in body must be of type integer,string: "boolean"`]],
      [{ field: 1.2 }, [`field: Invalid value: "number": field in body must be of type integer,string: "number"`]],
      [{ field: {} }, [`field: Invalid value: "object": field in body must be of type integer,string: "object"`]],
      [{ field: [] }, [`field: Invalid value: "array": field in body must be of type integer,string: "array"`]],
    ],
  },
  {
    name: "nullable, x-kubernetes-int-or-string and user-provided anyOf",
    schema: {
      type: "object",
      properties: { field: { nullable: true, "x-kubernetes-int-or-string": true, anyOf: [{ type: "integer" }, { type: "string" }] } },
    },
    objects: [{}, { field: null }, { field: 42 }, { field: "foo" }],
    failing: (["boolean", "number", "object", "array"] as const).map((kind) => {
      const value = { boolean: true, number: 1.2, object: {}, array: [] }[kind];
      return [
        { field: value },
        [
          `<nil>: Invalid value: "": "field" must validate at least one schema (anyOf)`,
          `field: Invalid value: "${kind}": field in body must be of type integer,string: "${kind}"`,
          `field: Invalid value: "${kind}": field in body must be of type integer: "${kind}"`,
        ],
      ];
    }),
  },
  {
    name: "nullable, x-kubernetes-int-or-string and user-provider allOf",
    schema: {
      type: "object",
      properties: {
        field: { nullable: true, "x-kubernetes-int-or-string": true, allOf: [{ anyOf: [{ type: "integer" }, { type: "string" }] }] },
      },
    },
    objects: [{}, { field: null }, { field: 42 }, { field: "foo" }],
    failing: (["boolean", "number", "object", "array"] as const).map((kind) => {
      const value = { boolean: true, number: 1.2, object: {}, array: [] }[kind];
      return [
        { field: value },
        [
          `<nil>: Invalid value: "": "field" must validate all the schemas (allOf). None validated`,
          `<nil>: Invalid value: "": "field" must validate at least one schema (anyOf)`,
          `field: Invalid value: "${kind}": field in body must be of type integer,string: "${kind}"`,
          `field: Invalid value: "${kind}": field in body must be of type integer: "${kind}"`,
        ],
      ];
    }),
  },
  {
    name: "invalid regex",
    schema: { type: "object", properties: { field: { type: "string", pattern: "+" } } },
    failing: [
      [
        { field: "foo" },
        [
          "field: Invalid value: \"foo\": field in body should match '+, but pattern is invalid: error parsing regexp: missing argument to repetition operator: `+`'",
        ],
      ],
    ],
  },
  {
    name: "required field",
    schema: {
      type: "object",
      required: ["field"],
      properties: { field: { type: "object", required: ["nested"], properties: { nested: {} } } },
    },
    failing: [
      [{ test: "a" }, ["field: Required value"]],
      [{ field: {} }, ["field.nested: Required value"]],
    ],
  },
  {
    name: "enum",
    schema: {
      type: "object",
      properties: {
        field: {
          type: "object",
          required: ["nestedint", "nestedstring"],
          properties: { nestedint: { type: "integer", enum: [1, 2] }, nestedstring: { type: "string", enum: ["a", "b"] } },
        },
      },
    },
    failing: [
      [{ field: {} }, ["field.nestedint: Required value", "field.nestedstring: Required value"]],
      [
        { field: { nestedint: "x", nestedstring: true } },
        [
          `field.nestedint: Invalid value: "string": field.nestedint in body must be of type integer: "string"`,
          `field.nestedint: Unsupported value: "x": supported values: "1", "2"`,
          `field.nestedstring: Invalid value: "boolean": field.nestedstring in body must be of type string: "boolean"`,
          `field.nestedstring: Unsupported value: true: supported values: "a", "b"`,
        ],
      ],
    ],
  },
  {
    name: "maxProperties",
    schema: { type: "object", properties: { fieldX: { type: "object", maxProperties: 2 } } },
    failing: [[{ fieldX: { a: true, b: true, c: true } }, ["fieldX: Too many: 3: must have at most 2 items"]]],
  },
  {
    name: "maxItems",
    schema: { type: "object", properties: { fieldX: { type: "array", maxItems: 2 } } },
    failing: [[{ fieldX: ["a", "b", "c"] }, ["fieldX: Too many: 3: must have at most 2 items"]]],
  },
  {
    name: "maxLength",
    schema: { type: "object", properties: { fieldX: { type: "string", maxLength: 2 } } },
    failing: [[{ fieldX: "abc" }, ["fieldX: Too long: may not be more than 2 bytes"]]],
  },
  // TestItemsProperty: a property called `items` is just a property.
  {
    name: "items in object",
    schema: { properties: { spec: { properties: { replicas: { type: "integer" } } } } },
    objects: [{ spec: { replicas: 1, items: ["1", "2"] } }],
  },
  {
    name: "items in array",
    schema: { properties: { secrets: { type: "array", items: { type: "string" } } } },
    objects: [{ secrets: ["1", "2"] }],
  },
];

describe("validate (ported from TestValidateCustomResource)", () => {
  describe.each(upstream)("$name", ({ schema, objects, failing }) => {
    it.each((objects ?? []).map((o) => [JSON.stringify(o), o]))("accepts %s", (_text, object) => {
      expect(errorsOf(schema, object)).toEqual([]);
    });
    it.each((failing ?? []).map(([o, errors]) => [JSON.stringify(o), o, errors] as const))("rejects %s", (_text, object, errors) => {
      expect(errorsOf(schema, object)).toEqual([...errors].sort());
    });
  });
});

describe("validate: value validations with go-openapi's messages", () => {
  const spec = (properties: Record<string, JSONSchemaProps>): JSONSchemaProps => ({
    type: "object",
    properties: { spec: { type: "object", properties } },
  });

  it.each<[string, JSONSchemaProps, unknown, string[]]>([
    [
      "an integer given a string (the 422 of `kubectl apply`)",
      { type: "integer" },
      "string",
      [`spec.x: Invalid value: "string": spec.x in body must be of type integer: "string"`],
    ],
    [
      "a float where an integer is required",
      { type: "integer" },
      1.5,
      [`spec.x: Invalid value: "number": spec.x in body must be of type integer: "number"`],
    ],
    ["int32 is not enforced (kube strips numeric formats)", { type: "integer", format: "int32" }, 2 ** 40, []],
    [
      "a bound applies to integers truncated, as Go converts it",
      { type: "integer", maximum: 5.5 },
      6,
      ["spec.x: Invalid value: 6: spec.x in body should be less than or equal to 5"],
    ],
    ["an integer where a number is required", { type: "number" }, 3, []],
    ["minimum", { type: "integer", minimum: 3 }, 2, ["spec.x: Invalid value: 2: spec.x in body should be greater than or equal to 3"]],
    [
      "exclusiveMinimum",
      { type: "integer", minimum: 3, exclusiveMinimum: true },
      3,
      ["spec.x: Invalid value: 3: spec.x in body should be greater than 3"],
    ],
    ["maximum", { type: "number", maximum: 2.5 }, 2.6, ["spec.x: Invalid value: 2.6: spec.x in body should be less than or equal to 2.5"]],
    [
      "exclusiveMaximum",
      { type: "integer", maximum: 10, exclusiveMaximum: true },
      10,
      ["spec.x: Invalid value: 10: spec.x in body should be less than 10"],
    ],
    ["multipleOf", { type: "integer", multipleOf: 5 }, 12, ["spec.x: Invalid value: 12: spec.x in body should be a multiple of 5"]],
    [
      "multipleOf a fraction",
      { type: "number", multipleOf: 0.5 },
      1.25,
      ["spec.x: Invalid value: 1.25: spec.x in body should be a multiple of 0.5"],
    ],
    ["minLength", { type: "string", minLength: 3 }, "ab", [`spec.x: Invalid value: "ab": spec.x in body should be at least 3 chars long`]],
    ["maxLength counts characters, not bytes", { type: "string", maxLength: 2 }, "éé", []],
    ["pattern", { type: "string", pattern: "^[a-z]+$" }, "ABC", [`spec.x: Invalid value: "ABC": spec.x in body should match '^[a-z]+$'`]],
    ["an unanchored pattern matches anywhere, as Go's MatchString", { type: "string", pattern: "[0-9]" }, "abc1", []],
    ["RE2 syntax: Unicode classes", { type: "string", pattern: "^\\pL+$" }, "héllo", []],
    ["RE2 syntax: case-insensitive flag", { type: "string", pattern: "(?i)^abc$" }, "ABC", []],
    [
      "only the first string failure is reported",
      { type: "string", maxLength: 1, pattern: "^x$" },
      "abc",
      ["spec.x: Too long: may not be more than 1 byte"],
    ],
    [
      "minItems",
      { type: "array", items: { type: "string" }, minItems: 2 },
      ["a"],
      [`spec.x: Invalid value: 1: spec.x in body should have at least 2 items`],
    ],
    [
      "items are validated with their index",
      { type: "array", items: { type: "integer" } },
      [1, "two"],
      [`spec.x[1]: Invalid value: "string": spec.x[1] in body must be of type integer: "string"`],
    ],
    [
      "minProperties",
      { type: "object", minProperties: 2 },
      { a: 1 },
      ["spec.x: Invalid value: 1: spec.x in body should have at least 2 properties"],
    ],
    [
      "additionalProperties schema",
      { type: "object", additionalProperties: { type: "string" } },
      { a: "x", b: 2 },
      [`spec.x.b: Invalid value: "integer": spec.x.b in body must be of type string: "integer"`],
    ],
    [
      "enum of objects",
      { type: "object", enum: [{ a: 1 }] },
      { a: 2 },
      [`spec.x: Unsupported value: {"a":2}: supported values: "{\\"a\\":1}"`],
    ],
    [
      "oneOf with two matches",
      { type: "integer", oneOf: [{ minimum: 1 }, { maximum: 10 }] },
      5,
      [`<nil>: Invalid value: "": "spec.x" must validate one and only one schema (oneOf). Found 2 valid alternatives`],
    ],
    [
      "oneOf with none",
      { type: "integer", oneOf: [{ minimum: 10 }, { maximum: 1 }] },
      5,
      [
        `<nil>: Invalid value: "": "spec.x" must validate one and only one schema (oneOf). Found none valid`,
        "spec.x: Invalid value: 5: spec.x in body should be greater than or equal to 10",
      ],
    ],
    [
      "allOf with one failing",
      { type: "integer", allOf: [{ minimum: 1 }, { maximum: 3 }] },
      5,
      [
        `<nil>: Invalid value: "": "spec.x" must validate all the schemas (allOf)`,
        "spec.x: Invalid value: 5: spec.x in body should be less than or equal to 3",
      ],
    ],
    [
      "not",
      { type: "string", not: { pattern: "^forbidden$" } },
      "forbidden",
      [`<nil>: Invalid value: "": "spec.x" must not validate the schema (not)`],
    ],
  ])("%s", (_name, x, value, expected) => {
    expect(errorsOf(spec({ x }), { spec: { x: value } })).toEqual([...expected].sort());
  });

  it("formats the 422 causes like kube-apiserver", () => {
    const schema = spec({ replicas: { type: "integer" }, x: { type: "string", enum: ["a", "b"] } });
    const errors = compileSchema(schema).validate({ spec: { replicas: "string", x: "c" } });
    expect(toStatusCauses(errors)).toEqual([
      {
        reason: "FieldValueTypeInvalid",
        field: "spec.replicas",
        message: `Invalid value: "string": spec.replicas in body must be of type integer: "string"`,
      },
      { reason: "FieldValueNotSupported", field: "spec.x", message: `Unsupported value: "c": supported values: "a", "b"` },
    ]);
  });

  it("reports required properties of the whole object", () => {
    const schema = yamlSchema(
      "type: object\nrequired: [spec]\nproperties:\n  spec:\n    type: object\n    required: [x]\n    properties:\n      x: {type: string}\n",
    );
    expect(errorsOf(schema, { metadata: { name: "a" } })).toEqual(["spec: Required value"]);
    expect(errorsOf(schema, { spec: {} })).toEqual(["spec.x: Required value"]);
  });
});

describe("validate: formats", () => {
  const schemaFor = (format: string): JSONSchemaProps => ({ type: "object", properties: { v: { type: "string", format } } });

  it.each<[string, string[], string[]]>([
    ["int32", ["anything"], []],
    ["date", ["2024-02-29"], ["2023-02-29", "2024-13-01", "20240101"]],
    ["date-time", ["2024-01-02T03:04:05Z", "2024-01-02T03:04:05.123+01:00"], ["2024-01-02", "2024-01-02T25:00:00Z", "2024-01-02T03:04:05"]],
    ["datetime", ["2024-01-02T03:04:05Z"], ["yesterday"]],
    ["duration", ["1h30m", "3 days", "500ms"], ["soon", ""]],
    ["uuid", ["123e4567-e89b-12d3-a456-426614174000", "123E4567E89B12D3A456426614174000"], ["123e4567-e89b-12d3-a456"]],
    ["uuid4", ["123e4567-e89b-42d3-a456-426614174000"], ["123e4567-e89b-12d3-a456-426614174000"]],
    ["hostname", ["example.com", "localhost"], ["-bad-.com", "a..b"]],
    ["ipv4", ["10.0.0.1", "010.0.0.1"], ["10.0.0", "::1", "256.0.0.1"]],
    ["ipv6", ["::1", "fe80::1", "::ffff:10.0.0.1"], ["10.0.0.1", "fe80::1%eth0", "gggg::1"]],
    ["cidr", ["10.0.0.0/8", "fd00::/64"], ["10.0.0.0", "10.0.0.0/33"]],
    ["mac", ["00:1a:2b:3c:4d:5e", "00-1A-2B-3C-4D-5E", "001a.2b3c.4d5e"], ["00:1a:2b:3c:4d", "hello"]],
    ["email", ["user@example.com", "Jane <jane@example.com>"], ["user", "a@b@c"]],
    ["uri", ["https://example.com/x?y=1", "/relative/path"], ["example.com", ""]],
    ["byte", ["aGVsbG8=", "YWJj"], ["not base64!", "abc"]],
    ["k8s-short-name", ["my-name"], ["My-Name", "a.b"]],
    ["k8s-long-name", ["my.name.example"], ["My.Name"]],
  ])("%s", (format, good, bad) => {
    const schema = schemaFor(format);
    for (const v of good) expect(errorsOf(schema, { v }), `${format} should accept ${JSON.stringify(v)}`).toEqual([]);
    for (const v of bad)
      expect(errorsOf(schema, { v }), `${format} should reject ${JSON.stringify(v)}`).toEqual([
        `v: Invalid value: ${JSON.stringify(v)}: v in body must be of type ${format}: ${JSON.stringify(v)}`,
      ]);
  });

  it("reports a non-string under a string format with the Go type it decoded", () => {
    expect(errorsOf(schemaFor("date"), { v: 5 })).toEqual([`v: Invalid value: "int64": v in body must be of type date: "int64"`]);
  });
});

describe("validate: list types", () => {
  const schema = yamlSchema(`
type: object
properties:
  tags:
    type: array
    x-kubernetes-list-type: set
    items: {type: string}
  ports:
    type: array
    x-kubernetes-list-type: map
    x-kubernetes-list-map-keys: [port, protocol]
    items:
      type: object
      required: [port]
      properties:
        port: {type: integer}
        protocol: {type: string, default: TCP}
        name: {type: string}
`);

  it("rejects a repeated set item once, at its second occurrence", () => {
    expect(errorsOf(schema, { tags: ["a", "b", "a", "a"] })).toEqual([`tags[2]: Duplicate value: "a"`]);
  });

  it("rejects map items with the same keys, counting a defaulted key as its default", () => {
    expect(
      errorsOf(schema, { ports: [{ port: 80 }, { port: 80, protocol: "UDP" }, { port: 80, protocol: "TCP", name: "again" }] }),
    ).toEqual([`ports[2]: Duplicate value: {"port":80,"protocol":"TCP","name":"again"}`]);
  });

  it("requires the items of a map list to be objects", () => {
    expect(errorsOf(schema, { ports: [{ port: 1 }, "x"] })).toContain(
      `ports[1]: Invalid value: "x": must be an object for an array of list-type map`,
    );
  });

  it('treats 1 and "1" as different set items', () => {
    const loose = yamlSchema(
      "type: object\nproperties:\n  s:\n    type: array\n    x-kubernetes-list-type: set\n    items: {x-kubernetes-int-or-string: true}\n",
    );
    expect(errorsOf(loose, { s: [1, "1"] })).toEqual([]);
  });
});

describe("validate: embedded resources", () => {
  const schema = yamlSchema(`
type: object
properties:
  template:
    type: object
    x-kubernetes-embedded-resource: true
    x-kubernetes-preserve-unknown-fields: true
`);

  it("requires apiVersion and kind", () => {
    expect(errorsOf(schema, { template: { metadata: { name: "x" } } })).toEqual([
      "template.apiVersion: Required value: must not be empty",
      "template.kind: Required value: must not be empty",
    ]);
  });

  it("checks apiVersion, kind and metadata as a resource's", () => {
    expect(
      errorsOf(schema, { template: { apiVersion: "a/b/c", kind: "9Pod", metadata: { name: "a/b", labels: { "bad key!": "x" } } } }),
    ).toEqual([
      `template.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c`,
      `template.kind: Invalid value: "9Pod": may have mixed case, but should otherwise match: ${isDNS1035Label("9pod").join(",")}`,
      `template.metadata.labels: Invalid value: "bad key!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      `template.metadata.name: Invalid value: "a/b": may not contain '/'`,
    ]);
  });

  it("accepts an embedded resource without a name", () => {
    expect(errorsOf(schema, { template: { apiVersion: "v1", kind: "Pod", metadata: { labels: { app: "x" } } } })).toEqual([]);
  });
});

describe("validate: x-kubernetes-validations seam", () => {
  const schema: JSONSchemaProps = {
    type: "object",
    properties: { spec: { type: "object", properties: { n: { type: "integer" } }, "x-kubernetes-validations": [{ rule: "self.n > 0" }] } },
  };

  it("runs the compiled rules with the old object when the object is well-formed", () => {
    const seen: Array<[unknown, unknown]> = [];
    const compiled = compileSchema(schema, {
      validationRules: () => (object, oldObject) => {
        seen.push([object.spec, oldObject?.spec]);
        return [{ type: "FieldValueInvalid", field: "spec", value: object.spec, detail: "failed rule: self.n > 0" }];
      },
    });
    expect(compiled.validate({ spec: { n: 0 } }, { spec: { n: 1 } }).map(formatFieldError)).toEqual([
      `spec: Invalid value: {"n":0}: failed rule: self.n > 0`,
    ]);
    expect(seen).toEqual([[{ n: 0 }, { n: 1 }]]);
  });

  it("does not run rules on an object with type errors, and says so", () => {
    let ran = false;
    const compiled = compileSchema(schema, {
      validationRules: () => () => {
        ran = true;
        return [];
      },
    });
    expect(compiled.validate({ spec: { n: "x" } }).map(formatFieldError)).toEqual([
      `spec.n: Invalid value: "string": spec.n in body must be of type integer: "string"`,
      "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
    ]);
    expect(ran).toBe(false);
  });
});

describe("validate: x-kubernetes-validations with src/cel (TestValidateCustomResource's CEL rows)", () => {
  const immutable: JSONSchemaProps = {
    type: "object",
    properties: { field: { type: "string", "x-kubernetes-validations": [{ rule: "self == oldSelf" }] } },
  };

  it("checks a transition rule against the old object on update only", () => {
    const compiled = compileSchema(immutable);
    expect(compiled.validate({ field: "x" }, { field: "x" })).toEqual([]);
    expect(compiled.validate({ field: "y" })).toEqual([]);
    const errors = compiled.validate({ field: "y" }, { field: "x" }).map(formatFieldError);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^field: Invalid value: "(y|string)": failed rule: self == oldSelf$/);
  });

  it("reports a rule under a list item at the item's path", () => {
    const schema: JSONSchemaProps = {
      type: "object",
      properties: {
        field: {
          type: "array",
          items: { type: "object", properties: { x: { type: "string", "x-kubernetes-validations": [{ rule: "self == 'x'" }] } } },
        },
      },
    };
    const compiled = compileSchema(schema);
    expect(compiled.validate({ field: [{ x: "x" }] })).toEqual([]);
    expect(compiled.validate({ field: [{ x: "y" }] }).map((e) => e.field)).toEqual(["field[0].x"]);
  });

  it("skips rules on an object with type errors", () => {
    const schema: JSONSchemaProps = {
      type: "object",
      properties: { n: { type: "integer", "x-kubernetes-validations": [{ rule: "self > 0" }] } },
    };
    expect(compileSchema(schema).validate({ n: "one" }).map(formatFieldError)).toEqual([
      `n: Invalid value: "string": n in body must be of type integer: "string"`,
      "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
    ]);
  });
});

/**
 * Integers beyond int64 in a custom resource. Upstream decodes a number that does not fit an int64
 * as a float64 (sigs.k8s.io/json's convertNumber), and kube-openapi's typeValidator
 * (pkg/validation/validate/type.go) takes a float64 as an integer only within ±2^53
 * (swag.IsFloat64AJSONInteger); so `type: integer` refuses 1e20 as a "number".
 */
describe("integer fields beyond int64", () => {
  const schema: JSONSchemaProps = {
    type: "object",
    properties: { field: { type: "integer", format: "int64" }, plain: { type: "integer" } },
  };

  it.each([1e20, -1e20, 2 ** 64, 1.5e300])("refuses %d as a number", (value) => {
    expect(errorsOf(schema, { field: value, plain: value })).toEqual([
      `field: Invalid value: "number": field in body must be of type integer: "number"`,
      `plain: Invalid value: "number": plain in body must be of type integer: "number"`,
    ]);
  });

  // Integer literals beyond 2^53 decode as bigint (api/exact-json.ts), as Go keeps them as int64.
  it.each([0, 2 ** 53 - 1, -(2 ** 53 - 1), 2n ** 63n - 1n, -(2n ** 63n)])("accepts %s, which an int64 holds", (value) => {
    expect(errorsOf(schema, { field: value, plain: value })).toEqual([]);
  });
});

describe("bounds and multipleOf on integers beyond 2^53", () => {
  // go-openapi checks an integer against a bound as int64 (the float64 bound truncated), so
  // 2^53 + 1 exceeds a maximum of 2^53 although the two are the same double.
  const field = (schema: JSONSchemaProps): JSONSchemaProps => ({ type: "object", properties: { field: { type: "integer", ...schema } } });
  const twoTo53 = 2 ** 53;

  it.each<[string, JSONSchemaProps, bigint, string[]]>([
    [
      "maximum",
      { maximum: twoTo53 },
      2n ** 53n + 1n,
      ["field: Invalid value: 9007199254740993: field in body should be less than or equal to 9007199254740992"],
    ],
    ["maximum, met", { maximum: twoTo53 }, 2n ** 53n, []],
    [
      "exclusiveMaximum",
      { maximum: twoTo53, exclusiveMaximum: true },
      2n ** 53n,
      ["field: Invalid value: 9007199254740992: field in body should be less than 9007199254740992"],
    ],
    [
      "minimum",
      { minimum: -twoTo53 },
      -(2n ** 53n) - 1n,
      ["field: Invalid value: -9007199254740993: field in body should be greater than or equal to -9007199254740992"],
    ],
    ["multipleOf", { multipleOf: 2 }, 2n ** 53n + 1n, ["field: Invalid value: 9007199254740993: field in body should be a multiple of 2"]],
    ["multipleOf, met", { multipleOf: 2 }, 2n ** 62n, []],
    // A bound the CRD spelled with more digits than a double holds is that double, as Go decodes it.
    [
      "a maximum decoded as an exact integer",
      { maximum: (2n ** 53n + 1n) as unknown as number },
      2n ** 53n + 1n,
      ["field: Invalid value: 9007199254740993: field in body should be less than or equal to 9007199254740992"],
    ],
  ])("%s", (_name, schema, value, expected) => {
    expect(errorsOf(field(schema), { field: value })).toEqual(expected);
  });
});
