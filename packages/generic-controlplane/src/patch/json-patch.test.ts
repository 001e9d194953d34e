import { describe, expect, it } from "vitest";
import { applyJsonPatch } from "./json-patch.js";
import { applyMergePatch } from "./merge-patch.js";

const configMap = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "demo", labels: { a: "1" } }, data: { x: "1", y: "2" } };

function codeOf(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error("expected a failure");
}

describe("applyJsonPatch", () => {
  it("replaces /data wholesale, dropping old keys (python e2e test_configmap_apis)", () => {
    const out = applyJsonPatch<typeof configMap>(configMap, [{ op: "replace", path: "/data", value: { z: "3" } }]);
    expect(out.data).toEqual({ z: "3" });
    expect(configMap.data).toEqual({ x: "1", y: "2" });
  });

  it("applies add, remove, move, copy and test in order", () => {
    const out = applyJsonPatch(configMap, [
      { op: "test", path: "/data/x", value: "1" },
      { op: "add", path: "/metadata/labels/b", value: "2" },
      { op: "remove", path: "/metadata/labels/a" },
      { op: "copy", from: "/data/x", path: "/data/copied" },
      { op: "move", from: "/data/y", path: "/data/moved" },
    ]);
    expect(out).toMatchObject({ metadata: { labels: { b: "2" } }, data: { x: "1", copied: "1", moved: "2" } });
    expect((out as typeof configMap).data).not.toHaveProperty("y");
  });

  it("reports a failed test like upstream, as 422 Invalid, leaving the input alone", () => {
    const error = codeOf(() =>
      applyJsonPatch(configMap, [
        { op: "replace", path: "/data/x", value: "9" },
        { op: "test", path: "/data/x", value: "1" },
      ]),
    );
    expect(error).toMatchObject({ code: "Invalid", message: "testing value /data/x failed: test failed" });
    expect(configMap.data.x).toBe("1");
  });

  it.each([
    [{ op: "replace", path: "/data/nope", value: "1" }, "replace operation does not apply: doc is missing key: /data/nope: missing value"],
    [{ op: "remove", path: "/data/nope" }, 'remove operation does not apply: doc is missing path: "/data/nope": missing value'],
    [{ op: "add", path: "/spec/nope/x", value: 1 }, 'add operation does not apply: doc is missing path: "/spec/nope/x": missing value'],
    [
      { op: "move", from: "/data/nope", path: "/data/z" },
      "move operation does not apply: doc is missing from path: /data/nope: missing value",
    ],
    [{ op: "test", path: "/data/nope", value: "1" }, "test operation does not apply: is missing path: /data/nope: missing value"],
    [{ op: "frob", path: "/data" }, "Unexpected kind: frob"],
  ])("rejects %j", (operation, message) => {
    expect(codeOf(() => applyJsonPatch(configMap, [operation]))).toMatchObject({ code: "Invalid", message });
  });

  it("rejects a body that is not a list with BadRequest", () => {
    expect(codeOf(() => applyJsonPatch(configMap, { op: "add" })).code).toBe("BadRequest");
  });

  it("caps a patch at 10,000 operations like kube-apiserver (413)", () => {
    const ops = Array.from({ length: 10_001 }, () => ({ op: "test", path: "/kind", value: "ConfigMap" }));
    expect(codeOf(() => applyJsonPatch(configMap, ops))).toMatchObject({
      code: "RequestEntityTooLarge",
      // apierrors.NewRequestEntityTooLargeError prefixes "Request entity too large: ".
      message: "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001",
    });
    expect(applyJsonPatch(configMap, ops.slice(1))).toEqual(configMap);
  });

  it("refuses prototype pollution", () => {
    expect(() => applyJsonPatch({}, [{ op: "add", path: "/__proto__/polluted", value: 1 }])).toThrow();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("applyMergePatch", () => {
  it("merges objects, deletes on null and replaces arrays (RFC 7386)", () => {
    const original = { a: { b: 1, c: [1, 2] }, d: "x" };
    const out = applyMergePatch(original, { a: { b: null, c: [3] }, e: { f: null, g: 1 } });
    expect(out).toEqual({ a: { c: [3] }, d: "x", e: { g: 1 } });
    expect(original).toEqual({ a: { b: 1, c: [1, 2] }, d: "x" });
  });

  it("is what kubectl label sends", () => {
    const out = applyMergePatch<typeof configMap>(configMap, { metadata: { labels: { a: null, b: "2" } } });
    expect(out.metadata.labels).toEqual({ b: "2" });
    expect(out.data).toEqual(configMap.data);
  });

  it("replaces the document when the patch is not an object", () => {
    expect(applyMergePatch({ a: 1 }, ["x"])).toEqual(["x"]);
  });

  it("returns a result that shares nothing with the inputs", () => {
    const patch = { a: { b: [1] } };
    const out = applyMergePatch<{ a: { b: number[] }; k: { v: number } }>({ k: { v: 1 } }, patch);
    out.a.b.push(2);
    out.k.v = 2;
    expect(patch.a.b).toEqual([1]);
  });
});
