import { describe, expect, it } from "vitest";
import type { JSONSchemaProps } from "../schema/types.js";
import { findDuplicateFields } from "./duplicate-fields.js";
import { findStrictFieldErrors } from "./strict-fields.js";
import { findUnknownCustomResourceFields, findUnknownFields, unknownFieldMessage } from "./unknown-fields.js";

const schema: JSONSchemaProps = {
  type: "object",
  properties: {
    metadata: { type: "object" },
    data: { type: "object", additionalProperties: { type: "string" } },
    spec: {
      type: "object",
      properties: {
        replicas: { type: "integer" },
        items: { type: "array", items: { type: "object", properties: { name: { type: "string" } } } },
        free: { type: "object", "x-kubernetes-preserve-unknown-fields": true, properties: { known: { type: "object", properties: {} } } },
        labels: { type: "object", additionalProperties: true },
        port: { "x-kubernetes-int-or-string": true },
        template: {
          type: "object",
          "x-kubernetes-embedded-resource": true,
          properties: { spec: { type: "object", properties: { x: { type: "string" } } } },
        },
      },
    },
  },
};

describe("findUnknownFields", () => {
  it("accepts a valid object", () => {
    const object = {
      apiVersion: "v1",
      kind: "Thing",
      metadata: { name: "a", labels: { x: "y" }, ownerReferences: [{ apiVersion: "v1", kind: "K", name: "n", uid: "u" }] },
      data: { anything: "goes" },
      spec: { replicas: 1, items: [{ name: "a" }], free: { whatever: { deep: 1 } }, labels: { a: 1 }, port: "http" },
    };
    expect(findUnknownFields(object, schema)).toEqual([]);
  });

  it("reports paths the way fieldValidation prints them", () => {
    const object = {
      apiVersion: "v1",
      kind: "Thing",
      metadata: { name: "a", unknownMeta: "x", ownerReferences: [{ uid: "u", bogus: true }] },
      spec: { foo: 1, items: [{ name: "a" }, { name: "b", extra: 1 }], free: { known: { nested: 1 } } },
      top: true,
    };
    expect(findUnknownFields(object, schema).sort()).toEqual(
      [
        "metadata.ownerReferences[0].bogus",
        "metadata.unknownMeta",
        "spec.foo",
        "spec.free.known.nested",
        "spec.items[1].extra",
        "top",
      ].sort(),
    );
    expect(unknownFieldMessage("spec.foo")).toBe('unknown field "spec.foo"');
  });

  it("checks embedded resources against ObjectMeta", () => {
    const object = {
      spec: { template: { apiVersion: "v1", kind: "X", metadata: { name: "n", unknownSubMeta: 1 }, spec: { x: "a", y: "b" } } },
    };
    expect(findUnknownFields(object, schema).sort()).toEqual(["spec.template.metadata.unknownSubMeta", "spec.template.spec.y"]);
  });

  it("orders a custom resource's as apiextensions does: root ObjectMeta, pruned fields sorted, embedded ObjectMeta", () => {
    const object = {
      spec: { zeta: 1, template: { metadata: { unknownSubMeta: 1 }, spec: { y: "b" } }, alpha: 1 },
      metadata: { unknownMeta: "x" },
    };
    expect(findUnknownCustomResourceFields(object, schema)).toEqual([
      "metadata.unknownMeta",
      "spec.alpha",
      "spec.template.spec.y",
      "spec.zeta",
      "spec.template.metadata.unknownSubMeta",
    ]);
    expect(
      findStrictFieldErrors(
        '{"spec":{"zeta":1,"zeta":2},"metadata":{"unknownMeta":"x"}}',
        "application/json",
        { spec: { zeta: 2 }, metadata: { unknownMeta: "x" } },
        schema,
        { customResource: true },
      ),
    ).toEqual(['duplicate field "spec.zeta"', 'unknown field "metadata.unknownMeta"', 'unknown field "spec.zeta"']);
  });
});

describe("findDuplicateFields", () => {
  it("finds repeated JSON keys with their full path", () => {
    const text =
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","name":"b"},"data":{"k":"1","k":"2"},"kind":"ConfigMap","list":[{"x":1,"x":2}]}';
    expect(findDuplicateFields(text, "application/json")).toEqual([
      'duplicate field "metadata.name"',
      'duplicate field "data.k"',
      'duplicate field "kind"',
      'duplicate field "list[0].x"',
    ]);
  });

  it("decodes escaped keys before comparing them", () => {
    expect(findDuplicateFields('{"a":1,"\\u0061":2}')).toEqual(['duplicate field "a"']);
  });

  it("finds repeated YAML keys with go-yaml's wording and line numbers", () => {
    const text = [
      "apiVersion: v1",
      "kind: ConfigMap",
      "metadata:",
      "  name: a",
      "data:",
      "  foo: x",
      "  bar: y",
      "  other: z",
      "  foo: again",
      "",
    ].join("\n");
    expect(findDuplicateFields(text, "application/yaml")).toEqual(['line 9: key "foo" already set in map']);
  });

  it("returns nothing for bodies without duplicates or that do not parse", () => {
    expect(findDuplicateFields('{"a":{"a":1},"b":[1,2]}')).toEqual([]);
    expect(findDuplicateFields('{"a":', "application/json")).toEqual([]);
    expect(findDuplicateFields("a: [", "application/yaml")).toEqual([]);
  });
});

describe("findStrictFieldErrors", () => {
  const lease: JSONSchemaProps = {
    type: "object",
    properties: {
      metadata: { type: "object" },
      spec: { type: "object", properties: { holderIdentity: { type: "string" }, leaseDurationSeconds: { type: "integer" } } },
    },
  };

  it("lists unknown and duplicate JSON fields in document order, like one strict decoding pass", () => {
    const text = `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l"},"spec":{"unknownField":"foo","leaseDurationSeconds":2,"leaseDurationSeconds":3,"holderIdentity":"h"},"extra":1}`;
    expect(findStrictFieldErrors(text, "application/json", JSON.parse(text), lease)).toEqual([
      'unknown field "spec.unknownField"',
      'duplicate field "spec.leaseDurationSeconds"',
      'unknown field "extra"',
    ]);
  });

  it("puts YAML duplicate keys first", () => {
    const text = ["apiVersion: v1", "kind: Lease", "spec:", "  bogus: 1", "  holderIdentity: a", "  holderIdentity: b", ""].join("\n");
    expect(
      findStrictFieldErrors(text, "application/yaml", { apiVersion: "v1", kind: "Lease", spec: { bogus: 1, holderIdentity: "b" } }, lease),
    ).toEqual(['line 6: key "holderIdentity" already set in map', 'unknown field "spec.bogus"']);
  });

  it("reports only duplicates when there is no schema", () => {
    expect(findStrictFieldErrors('{"a":1,"a":2,"b":3}', "application/json", { a: 2, b: 3 }, undefined)).toEqual(['duplicate field "a"']);
  });
});
