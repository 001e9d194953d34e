import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { KubeObject } from "../api/types.js";
import { decodeProtobuf, encodeProtobuf } from "./codec.js";

const key = fc.stringMatching(/^[-._a-zA-Z0-9]{1,20}$/);
const text = fc.string({ unit: "grapheme", maxLength: 30 });
const second = fc.integer({ min: 0, max: 4_102_444_800 }).map((s) => new Date(s * 1000).toISOString().replace(/\.\d{3}Z$/, "Z"));

const configMap = fc.record(
  {
    metadata: fc.record(
      {
        name: key,
        namespace: key,
        labels: fc.dictionary(key, key, { maxKeys: 4 }),
        creationTimestamp: second,
        generation: fc.integer({ min: 1, max: 2 ** 40 }),
      },
      { requiredKeys: ["name"] },
    ),
    data: fc.dictionary(key, text, { maxKeys: 5 }),
    binaryData: fc.dictionary(
      key,
      fc.uint8Array({ maxLength: 40 }).map((bytes) => Buffer.from(bytes).toString("base64")),
      { maxKeys: 3 },
    ),
    immutable: fc.boolean(),
  },
  { requiredKeys: ["metadata"] },
);

/** Drop what JSON-with-omitempty cannot carry: empty maps. */
function omitEmpty(value: Record<string, unknown>): Record<string, unknown> {
  const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => !isMap(v) || Object.keys(v).length > 0)
      .map(([k, v]) => [k, isMap(v) ? omitEmpty(v) : v]),
  );
}

describe("protobuf round trip (property)", () => {
  it("keeps a `__proto__` key an ordinary key", () => {
    const object = JSON.parse(
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"p"},"data":{"__proto__":"x","a":"b"}}',
    ) as KubeObject;
    const decoded = decodeProtobuf(encodeProtobuf(object));
    expect(Object.keys(decoded["data"] as object)).toEqual(["__proto__", "a"]);
    expect(Object.getPrototypeOf(decoded["data"])).toBe(Object.prototype);
  });

  it("any ConfigMap survives encode → decode", () => {
    fc.assert(
      fc.property(configMap, (fields) => {
        const object = { apiVersion: "v1", kind: "ConfigMap", ...fields } as KubeObject;
        expect(decodeProtobuf(encodeProtobuf(object))).toEqual(omitEmpty(object));
      }),
      { numRuns: 150 },
    );
  });
});
