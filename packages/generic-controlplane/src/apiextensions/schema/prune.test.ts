import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../api/types.js";
import type { JSONSchemaProps } from "../../schema/types.js";
import { compileSchema } from "./index.js";
import { pruneValue } from "./prune.js";

/** apiextensions-apiserver's `TestPrune` (schema/pruning/algorithm_test.go): input, schema, expected output. */

const nestedPreserveSchema: JSONSchemaProps = {
  type: "object",
  "x-kubernetes-preserve-unknown-fields": true,
  properties: {
    alpha: { type: "string" },
    beta: { type: "number" },
    pruning: {
      type: "object",
      properties: { preserving: { type: "object", "x-kubernetes-preserve-unknown-fields": true }, pruning: { type: "object" } },
    },
    preserving: {
      type: "object",
      "x-kubernetes-preserve-unknown-fields": true,
      properties: { preserving: { type: "object", "x-kubernetes-preserve-unknown-fields": true }, pruning: { type: "object" } },
    },
    preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields: {
      type: "object",
      "x-kubernetes-preserve-unknown-fields": true,
      additionalProperties: { type: "object", properties: { specified: { type: "object" } } },
    },
    preservingAdditionalPropertiesKeyPruneValues: {
      type: "object",
      additionalProperties: { type: "object", properties: { specified: { type: "object" } } },
    },
  },
};

const embeddedSchema: JSONSchemaProps = {
  type: "object",
  properties: {
    pruned: { type: "object", "x-kubernetes-embedded-resource": true, properties: { spec: { type: "object" } } },
    preserving: { type: "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true },
    nested: {
      type: "object",
      "x-kubernetes-embedded-resource": true,
      properties: {
        spec: {
          type: "object",
          properties: { embedded: { type: "object", "x-kubernetes-embedded-resource": true, properties: { spec: { type: "object" } } } },
        },
      },
    },
  },
};

const resource = (extra: Record<string, unknown> = {}) => ({
  apiVersion: "foo/v1",
  kind: "Foo",
  unspecified: "bar",
  metadata: { name: "instance", unspecified: "bar" },
  spec: { unspecified: "bar" },
  ...extra,
});

const embeddedInput = () => ({
  apiVersion: "foo/v1",
  kind: "Foo",
  metadata: { name: "instance", unspecified: "bar" },
  unspecified: "bar",
  pruned: resource(),
  preserving: resource(),
  nested: resource({ spec: { unspecified: "bar", embedded: resource() } }),
});

const prunedResource = (spec: Record<string, unknown> = {}) => ({
  apiVersion: "foo/v1",
  kind: "Foo",
  metadata: { name: "instance", unspecified: "bar" },
  spec,
});

const cases: Array<{ name: string; input: unknown; schema?: JSONSchemaProps; root?: boolean; expected: unknown }> = [
  { name: "empty", input: null, expected: null },
  { name: "scalar", input: 4, schema: {}, expected: 4 },
  { name: "scalar array", input: [1, 2], schema: { items: {} }, expected: [1, 2] },
  {
    name: "object array",
    input: [{ a: 1 }, { b: 1 }, { a: 1, b: 2, c: 3 }],
    schema: { items: { properties: { a: {}, c: {} } } },
    expected: [{ a: 1 }, {}, { a: 1, c: 3 }],
  },
  { name: "object array with nil schema", input: [{ a: 1 }, { b: 1 }, { a: 1, b: 2, c: 3 }], expected: [{}, {}, {}] },
  {
    name: "object array object",
    input: { array: [{ a: 1 }, { b: 1 }, { a: 1, b: 2, c: 3 }], unspecified: { a: 1 }, specified: { a: 1, b: 2, c: 3 } },
    schema: { properties: { array: { items: { properties: { a: {}, c: {} } } }, specified: { properties: { a: {}, c: {} } } } },
    expected: { array: [{ a: 1 }, {}, { a: 1, c: 3 }], specified: { a: 1, c: 3 } },
  },
  {
    name: "nested x-kubernetes-preserve-unknown-fields",
    input: {
      unspecified: "bar",
      alpha: "abc",
      beta: 42.0,
      unspecifiedObject: { unspecified: "bar" },
      pruning: {
        unspecified: "bar",
        unspecifiedObject: { unspecified: "bar" },
        pruning: { unspecified: "bar" },
        preserving: { unspecified: "bar" },
      },
      preserving: {
        unspecified: "bar",
        unspecifiedObject: { unspecified: "bar" },
        pruning: { unspecified: "bar" },
        preserving: { unspecified: "bar" },
      },
      preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields: { foo: { specified: { unspecified: "bar" }, unspecified: "bar" } },
      preservingAdditionalPropertiesKeyPruneValues: { foo: { specified: { unspecified: "bar" }, unspecified: "bar" } },
    },
    schema: nestedPreserveSchema,
    expected: {
      unspecified: "bar",
      alpha: "abc",
      beta: 42.0,
      unspecifiedObject: { unspecified: "bar" },
      pruning: { pruning: {}, preserving: { unspecified: "bar" } },
      preserving: { unspecified: "bar", unspecifiedObject: { unspecified: "bar" }, pruning: {}, preserving: { unspecified: "bar" } },
      preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields: { foo: { specified: {} } },
      preservingAdditionalPropertiesKeyPruneValues: { foo: { specified: {} } },
    },
  },
  {
    name: "additionalProperties with schema",
    input: { a: 1, b: 1, c: { a: 1, b: 2, c: { a: 1 } } },
    schema: { properties: { a: {}, c: { additionalProperties: { type: "integer" } } } },
    expected: { a: 1, c: { a: 1, b: 2, c: {} } },
  },
  {
    name: "additionalProperties with bool",
    input: { a: 1, b: 1, c: { a: 1, b: 2, c: { a: 1 } } },
    schema: { properties: { a: {}, c: { additionalProperties: false } } },
    expected: { a: 1, c: { a: 1, b: 2, c: {} } },
  },
  {
    name: "x-kubernetes-embedded-resource",
    input: embeddedInput(),
    schema: embeddedSchema,
    expected: {
      pruned: prunedResource(),
      preserving: resource(),
      nested: prunedResource({ embedded: prunedResource() }),
    },
  },
  {
    name: "x-kubernetes-embedded-resource, with root=true",
    input: embeddedInput(),
    schema: embeddedSchema,
    root: true,
    expected: {
      apiVersion: "foo/v1",
      kind: "Foo",
      metadata: { name: "instance", unspecified: "bar" },
      pruned: prunedResource(),
      preserving: resource(),
      nested: prunedResource({ embedded: prunedResource() }),
    },
  },
];

describe("pruneValue (ported from TestPrune)", () => {
  it.each(cases)("$name", ({ input, schema, root, expected }) => {
    const value = structuredClone(input);
    pruneValue(value, schema, root === true);
    expect(value).toEqual(expected);
  });
});

describe("pruned field paths, for fieldValidation", () => {
  it("lists every dropped field in Go path notation, sorted, without the root's apiVersion/kind/metadata", () => {
    const value = embeddedInput();
    expect(pruneValue(value, embeddedSchema, true)).toEqual([
      "nested.spec.embedded.spec.unspecified",
      "nested.spec.embedded.unspecified",
      "nested.spec.unspecified",
      "nested.unspecified",
      "pruned.spec.unspecified",
      "pruned.unspecified",
      "unspecified",
    ]);
  });

  it("indexes list items", () => {
    const value = { spec: { items: [{ a: 1, b: 2 }, { c: 3 }] } };
    expect(
      pruneValue(
        value,
        {
          type: "object",
          properties: {
            spec: {
              type: "object",
              properties: { items: { type: "array", items: { type: "object", properties: { a: { type: "integer" } } } } },
            },
          },
        },
        true,
      ),
    ).toEqual(["spec.items[0].b", "spec.items[1].c"]);
  });
});

describe("compileSchema().prune", () => {
  const schema: JSONSchemaProps = {
    type: "object",
    properties: {
      spec: {
        type: "object",
        properties: {
          replicas: { type: "integer" },
          template: { type: "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true },
        },
      },
    },
  };

  it("prunes unknown fields, drops non-nullable nulls, and drops unknown metadata of embedded resources", () => {
    const object = {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w" },
      spec: {
        foo: 1,
        replicas: null,
        template: { apiVersion: "v1", kind: "Pod", metadata: { name: "p", bogus: true, creationTimestamp: null }, spec: { x: 1 } },
      },
    } as KubeObject;
    expect(compileSchema(schema).prune(object)).toEqual(["spec.foo", "spec.template.metadata.bogus"]);
    expect(object).toEqual({
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w" },
      spec: { template: { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { x: 1 } } },
    });
  });
});
