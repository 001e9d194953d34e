// The examples of RFC 7386 Appendix A, which evanphx/json-patch (the merge patch Kubernetes applies)
// tests in merge_test.go, plus the properties the API server relies on.
import { describe, expect, it } from "vitest";
import { applyMergePatch } from "./merge-patch.js";

describe("applyMergePatch", () => {
  it.each([
    [{ a: "b" }, { a: "c" }, { a: "c" }],
    [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
    [{ a: "b" }, { a: null }, {}],
    [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
    [{ a: ["b"] }, { a: "c" }, { a: "c" }],
    [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
    [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
    [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
    [
      ["a", "b"],
      ["c", "d"],
      ["c", "d"],
    ],
    [{ a: "b" }, ["c"], ["c"]],
    [{ a: "foo" }, null, null],
    [{ a: "foo" }, "bar", "bar"],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: "b", c: null }, { a: "b" }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])("RFC 7386: %j patched with %j is %j", (document, patch, result) => {
    expect(applyMergePatch(document, patch)).toStrictEqual(result);
  });

  it("modifies neither input", () => {
    const document = { a: { b: 1 } };
    const patch = { a: { c: [1] } };
    const result = applyMergePatch<{ a: { c: number[] } }>(document, patch);
    result.a.c.push(2);
    expect(document).toStrictEqual({ a: { b: 1 } });
    expect(patch).toStrictEqual({ a: { c: [1] } });
  });

  it("stores a client's __proto__ key as data, leaving prototypes alone", () => {
    const result = applyMergePatch<Record<string, unknown>>({ spec: { replicas: 1 } }, JSON.parse('{"spec":{"__proto__":{"replicas":9}}}'));
    const spec = result.spec as Record<string, unknown>;
    expect(Object.getPrototypeOf(spec)).toBe(Object.prototype);
    expect(Object.keys(spec)).toEqual(["replicas", "__proto__"]);
    expect(({} as { replicas?: number }).replicas).toBeUndefined();
  });

  it("merges patches nested 10,000 levels deep without overflowing the stack", () => {
    const depth = 10_000;
    const patch = JSON.parse(`${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`) as unknown;
    let node = applyMergePatch<Record<string, unknown>>({}, patch);
    for (let i = 1; i < depth; i++) node = node.a as Record<string, unknown>;
    expect(node.a).toBe(1);
  });
});
