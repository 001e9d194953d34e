import { describe, expect, it } from "vitest";
import type { JSONSchemaProps } from "../schema/types.js";
import { compare, type Comparison } from "./field-set.js";
import { toFieldsV1 } from "./fields-v1.js";

/** A pod-like schema: an associative list keyed by name, a set, an atomic list, granular and atomic maps, untyped values. */
const condition: JSONSchemaProps = {
  type: "object",
  properties: { type: { type: "string" }, status: { type: "string" }, lastTransitionTime: { type: "string" } },
};
const schema: JSONSchemaProps = {
  type: "object",
  properties: {
    metadata: {
      type: "object",
      properties: {
        name: { type: "string" },
        labels: { type: "object", additionalProperties: { type: "string" } },
        finalizers: { type: "array", "x-kubernetes-list-type": "set", items: { type: "string" } },
      },
    },
    spec: {
      type: "object",
      properties: {
        containers: {
          type: "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["name"],
          items: {
            type: "object",
            properties: { name: { type: "string" }, image: { type: "string" }, args: { type: "array", items: { type: "string" } } },
          },
        },
        selector: { type: "object", "x-kubernetes-map-type": "atomic", additionalProperties: { type: "string" } },
        extra: { "x-kubernetes-preserve-unknown-fields": true },
      },
    },
    status: {
      type: "object",
      properties: {
        phase: { type: "string" },
        conditions: { type: "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"], items: condition },
      },
    },
  },
};

const base = () => ({
  metadata: { name: "p", labels: { app: "a" }, finalizers: ["f1", "f2"] },
  spec: { containers: [{ name: "c", image: "x", args: ["a", "b"] }], selector: { a: "b" }, extra: { deep: { list: [1, 2] } } },
  status: { phase: "Pending", conditions: [{ type: "PodScheduled", status: "True" }] },
});

const texts = (c: Comparison) => ({ added: toFieldsV1(c.added), modified: toFieldsV1(c.modified), removed: toFieldsV1(c.removed) });

/** The comparison that passes over identical containers is the one that walks them. */
function expectSameAsWalk(before: unknown, after: unknown): ReturnType<typeof texts> {
  const walked = texts(compare(before, after, schema, true));
  expect(texts(compare(before, after, schema))).toEqual(walked);
  return walked;
}

describe("compare passes over identical containers", () => {
  const edits: Array<[string, (o: ReturnType<typeof base>) => unknown]> = [
    ["nothing changed", (o) => o],
    [
      "a status write: phase and a new condition",
      (o) => ({ ...o, status: { phase: "Running", conditions: [...o.status.conditions, { type: "Ready", status: "True" }] } }),
    ],
    ["a condition changed in place", (o) => ({ ...o, status: { ...o.status, conditions: [{ type: "PodScheduled", status: "False" }] } })],
    ["status removed", (o) => ({ metadata: o.metadata, spec: o.spec })],
    ["a label added", (o) => ({ ...o, metadata: { ...o.metadata, labels: { app: "a", b: "c" } } })],
    ["a finalizer dropped", (o) => ({ ...o, metadata: { ...o.metadata, finalizers: ["f2"] } })],
    ["an image changed", (o) => ({ ...o, spec: { ...o.spec, containers: [{ name: "c", image: "y", args: ["a", "b"] }] } })],
    ["an atomic list changed", (o) => ({ ...o, spec: { ...o.spec, containers: [{ name: "c", image: "x", args: ["b"] }] } })],
    ["an atomic map changed", (o) => ({ ...o, spec: { ...o.spec, selector: { a: "c" } } })],
    ["an untyped value changed deep down", (o) => ({ ...o, spec: { ...o.spec, extra: { deep: { list: [1, 3] } } } })],
    [
      "duplicated items in an associative list",
      (o) => ({ ...o, spec: { ...o.spec, containers: [o.spec.containers[0], o.spec.containers[0]] } }),
    ],
    ["a key holding undefined on both sides", (o) => ({ ...o, metadata: { ...o.metadata, generateName: undefined } })],
    ["NaN in an untyped value", (o) => ({ ...o, spec: { ...o.spec, extra: { n: Number.NaN } } })],
    [
      "keys in another order",
      (o) => ({
        status: o.status,
        spec: { extra: o.spec.extra, selector: o.spec.selector, containers: o.spec.containers },
        metadata: o.metadata,
      }),
    ],
  ];
  it.each(edits)("%s", (_name, edit) => {
    const before = base();
    if (_name.includes("undefined on both sides")) (before.metadata as Record<string, unknown>)["generateName"] = undefined;
    if (_name.includes("NaN")) before.spec.extra = { n: Number.NaN } as never;
    expectSameAsWalk(before, structuredClone(edit(base()) as object));
    expectSameAsWalk(edit(base()), before);
  });

  it("finds the change of a status write without walking the unchanged spec", () => {
    const after = { ...base(), status: { phase: "Running", conditions: base().status.conditions } };
    expect(expectSameAsWalk(base(), after)).toEqual({ added: {}, modified: { "f:status": { "f:phase": {} } }, removed: {} });
  });
});
