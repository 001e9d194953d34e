import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { KubeObject } from "../../api/types.js";
import type { JSONSchemaProps } from "../../schema/types.js";
import { applyDefaultValues, pruneNonNullableNullsWithoutDefaults } from "./defaulting.js";
import { compileSchema } from "./index.js";

/** apiextensions-apiserver's `TestDefault` (schema/defaulting/algorithm_test.go): input, schema, expected output. */
const upstream: Array<{ name: string; input: unknown; schema?: JSONSchemaProps; expected: unknown }> = [
  { name: "empty", input: null, expected: null },
  { name: "scalar", input: 4, schema: { default: "foo" }, expected: 4 },
  { name: "scalar array", input: [1, 2], schema: { items: { default: "foo" } }, expected: [1, 2] },
  {
    name: "object array",
    input: [{ a: 1 }, { b: 1 }, { c: 1 }],
    schema: { items: { properties: { a: { default: "A" }, b: { default: "B" }, c: { default: "C" } } } },
    expected: [
      { a: 1, b: "B", c: "C" },
      { a: "A", b: 1, c: "C" },
      { a: "A", b: "B", c: 1 },
    ],
  },
  {
    name: "object array object",
    input: { array: [{ a: 1 }, { b: 2 }], object: { a: 1 }, additionalProperties: { x: { a: 1 }, y: { b: 2 } } },
    schema: {
      properties: {
        array: { items: { properties: { a: { default: "A" }, b: { default: "B" } } } },
        object: { properties: { a: { default: "N" }, b: { default: "O" } } },
        additionalProperties: { additionalProperties: { properties: { a: { default: "alpha" }, b: { default: "beta" } } } },
        foo: { default: "bar" },
      },
    },
    expected: {
      array: [
        { a: 1, b: "B" },
        { a: "A", b: 2 },
      ],
      object: { a: 1, b: "O" },
      additionalProperties: { x: { a: 1, b: "beta" }, y: { a: "alpha", b: 2 } },
      foo: "bar",
    },
  },
  {
    name: "empty and null",
    input: [{}, { a: 1 }, { a: 0 }, { a: 0.0 }, { a: "" }, { a: null }, { a: [] }, { a: {} }],
    schema: { items: { properties: { a: { default: "A" } } } },
    expected: [{ a: "A" }, { a: 1 }, { a: 0 }, { a: 0.0 }, { a: "" }, { a: "A" }, { a: [] }, { a: {} }],
  },
  {
    name: "null in nullable list",
    input: [null],
    schema: { nullable: true, items: { properties: { a: { default: "A" } } } },
    expected: [null],
  },
  { name: "null in non-nullable list", input: [null], schema: { nullable: false, items: { default: "A" } }, expected: ["A"] },
  {
    name: "null in nullable object",
    input: { a: null },
    schema: { properties: { a: { nullable: true, default: "A" } } },
    expected: { a: null },
  },
  {
    name: "null in non-nullable object",
    input: { a: null },
    schema: { properties: { a: { nullable: false, default: "A" } } },
    expected: { a: "A" },
  },
  {
    name: "null in nullable object with additionalProperties",
    input: { a: null },
    schema: { additionalProperties: { nullable: true, default: "A" } },
    expected: { a: null },
  },
  {
    name: "null in non-nullable object with additionalProperties",
    input: { a: null },
    schema: { additionalProperties: { nullable: false, default: "A" } },
    expected: { a: "A" },
  },
  { name: "null unknown field", input: { a: null }, schema: { additionalProperties: true }, expected: { a: null } },
];

describe("applyDefaultValues (ported from TestDefault)", () => {
  it.each(upstream)("$name", ({ input, schema, expected }) => {
    const value = structuredClone(input);
    applyDefaultValues(value, schema);
    expect(value).toEqual(expected);
  });
});

describe("pruneNonNullableNullsWithoutDefaults", () => {
  const schema: JSONSchemaProps = {
    type: "object",
    properties: {
      a: { type: "string" },
      b: { type: "string", nullable: true },
      c: { type: "string", default: "C" },
      m: { type: "object", additionalProperties: { type: "string" } },
      l: { type: "array", items: { type: "string" } },
    },
  };

  it("drops nulls the schema cannot hold and has no default for, and keeps the rest", () => {
    const value = { a: null, b: null, c: null, unknown: null, m: { x: null, y: "y" }, l: [null] };
    pruneNonNullableNullsWithoutDefaults(value, schema);
    // c keeps its null for defaulting to replace; list items are never removed; unknown fields are the pruner's.
    expect(value).toEqual({ b: null, c: null, unknown: null, m: { y: "y" }, l: [null] });
  });
});

describe("compileSchema().applyDefaults", () => {
  const schema = parse(`
type: object
properties:
  spec:
    type: object
    default: {}
    properties:
      replicas: {type: integer, default: 1}
      image: {type: string, default: "nginx:latest"}
      strategy:
        type: object
        default: {type: RollingUpdate, bogus: dropped}
        properties:
          type: {type: string}
          maxSurge: {x-kubernetes-int-or-string: true, default: "25%"}
      ports:
        type: array
        items:
          type: object
          properties:
            port: {type: integer}
            protocol: {type: string, default: TCP}
      labels:
        type: object
        nullable: true
        additionalProperties: {type: string}
`) as JSONSchemaProps;

  it("fills absent fields, recursing into defaulted values, and prunes what a default brings that the schema does not know", () => {
    const object = { apiVersion: "example.com/v1", kind: "Web", metadata: { name: "w" } } as KubeObject;
    compileSchema(schema).applyDefaults(object);
    expect(object.spec).toEqual({ replicas: 1, image: "nginx:latest", strategy: { type: "RollingUpdate", maxSurge: "25%" } });
  });

  it("keeps given values, replaces nulls the schema does not allow, keeps nulls it does", () => {
    const object = {
      spec: { replicas: 0, image: null, labels: null, ports: [{ port: 80 }, { port: 53, protocol: "UDP" }] },
    } as unknown as KubeObject;
    compileSchema(schema).applyDefaults(object);
    expect(object.spec).toEqual({
      replicas: 0,
      image: "nginx:latest",
      labels: null,
      strategy: { type: "RollingUpdate", maxSurge: "25%" },
      ports: [
        { port: 80, protocol: "TCP" },
        { port: 53, protocol: "UDP" },
      ],
    });
  });

  it("is idempotent, so defaulting again on read changes nothing", () => {
    const object = { spec: { ports: [{ port: 1 }] } } as unknown as KubeObject;
    const compiled = compileSchema(schema);
    compiled.applyDefaults(object);
    const once = structuredClone(object);
    compiled.applyDefaults(object);
    expect(object).toEqual(once);
  });

  it("copies defaults, so objects never share them", () => {
    const compiled = compileSchema(schema);
    const a = {} as KubeObject;
    const b = {} as KubeObject;
    compiled.applyDefaults(a);
    compiled.applyDefaults(b);
    (a.spec as { strategy: { type: string } }).strategy.type = "Recreate";
    expect((b.spec as { strategy: { type: string } }).strategy.type).toBe("RollingUpdate");
  });
});
