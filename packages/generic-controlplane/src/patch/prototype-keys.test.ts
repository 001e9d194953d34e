import { afterEach, describe, expect, it } from "vitest";
import { configMapsResource } from "../resources/config-maps.js";
import type { JSONSchemaProps } from "../schema/types.js";
import { applyJsonPatch } from "./json-patch.js";
import { applyMergePatch } from "./merge-patch.js";
import { applyStrategicMergePatch } from "./strategic-merge-patch.js";
import { findUnknownFields } from "./unknown-fields.js";

/**
 * Every patch type treats a client's key as a plain string, as apimachinery's map[string]interface{}
 * does: `__proto__` and `constructor` are stored under their names, and merging into them never
 * reaches `Object.prototype`. Bodies are parsed with JSON.parse, as the handlers parse them.
 */

const configMap = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" }, data: { a: "1" } };
const schema = configMapsResource.schema as JSONSchemaProps;

function ownKeys(value: unknown): string[] {
  return Object.keys(value as object);
}

afterEach(() => {
  expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
});

describe.each([
  ["merge patch", (document: unknown, patch: unknown) => applyMergePatch<Record<string, unknown>>(document, patch)],
  [
    "strategic merge patch",
    (document: unknown, patch: unknown) => applyStrategicMergePatch<Record<string, unknown>>(document, patch, schema),
  ],
])("%s", (_name, apply) => {
  it("merges a top-level __proto__ as an ordinary key, leaving Object.prototype alone", () => {
    const result = apply(configMap, JSON.parse('{"__proto__":{"polluted":"yes"}}'));
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(ownKeys(result)).toContain("__proto__");
    expect(result["polluted"]).toBeUndefined();
    expect(JSON.stringify(result)).toContain('"__proto__":{"polluted":"yes"}');
  });

  it("stores prototype names as map keys", () => {
    const result = apply(configMap, JSON.parse('{"data":{"__proto__":"p","constructor":"c","toString":"t"}}'));
    const data = result["data"] as Record<string, unknown>;
    expect(ownKeys(data).sort()).toEqual(["__proto__", "a", "constructor", "toString"]);
    expect(JSON.stringify(data)).toBe('{"a":"1","__proto__":"p","constructor":"c","toString":"t"}');
  });

  it("merges into an existing __proto__ key, and deletes it with null", () => {
    const live = JSON.parse('{"data":{"__proto__":"old"}}') as unknown;
    const merged = apply(live, JSON.parse('{"data":{"__proto__":"new"}}'));
    expect(JSON.stringify(merged)).toBe('{"data":{"__proto__":"new"}}');
    const removed = apply(live, JSON.parse('{"data":{"__proto__":null}}'));
    expect(JSON.stringify(removed)).toBe('{"data":{}}');
  });
});

describe("JSON patch", () => {
  it("adds, replaces and removes a __proto__ or constructor key like any other", () => {
    const added = applyJsonPatch<{ data: Record<string, unknown> }>(configMap, [
      { op: "add", path: "/data/__proto__", value: { polluted: "yes" } },
      { op: "add", path: "/data/constructor", value: "c" },
      { op: "replace", path: "/data/constructor", value: "d" },
      { op: "copy", from: "/data/constructor", path: "/data/prototype" },
    ]);
    expect(Object.getPrototypeOf(added.data)).toBe(Object.prototype);
    expect(JSON.stringify(added.data)).toBe('{"a":"1","__proto__":{"polluted":"yes"},"constructor":"d","prototype":"d"}');
    const removed = applyJsonPatch<{ data: Record<string, unknown> }>(added, [
      { op: "remove", path: "/data/__proto__" },
      { op: "test", path: "/data/constructor", value: "d" },
    ]);
    expect(ownKeys(removed.data)).toEqual(["a", "constructor", "prototype"]);
  });

  it("finds no inherited value at a prototype name", () => {
    expect(() => applyJsonPatch(configMap, [{ op: "replace", path: "/data/constructor", value: "x" }])).toThrow(
      /doc is missing key: \/data\/constructor/,
    );
    expect(() => applyJsonPatch(configMap, [{ op: "add", path: "/__proto__/polluted", value: "yes" }])).toThrow(/doc is missing path/);
  });
});

describe("unknown fields", () => {
  it("reports prototype names as unknown fields, and keeps them as map keys", () => {
    const object = JSON.parse(
      '{"constructor":1,"toString":2,"__proto__":3,"metadata":{"name":"x","valueOf":4},"data":{"hasOwnProperty":"v"}}',
    ) as unknown;
    expect(findUnknownFields(object, schema).sort()).toEqual(["__proto__", "constructor", "metadata.valueOf", "toString"]);
  });
});
