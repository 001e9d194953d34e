import { describe, expect, it } from "vitest";
import { canonicalJson, sameJson } from "./object-utils.js";

/** sameJson must say exactly what comparing the two sorted JSON texts says. */
function expectAgreement(a: unknown, b: unknown): boolean {
  const texts = canonicalJson(a) === canonicalJson(b);
  expect(sameJson(a, b), `${String(canonicalJson(a))} vs ${String(canonicalJson(b))}`).toBe(texts);
  expect(sameJson(b, a)).toBe(texts);
  return texts;
}

const pod = () => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "default", labels: { app: "a" }, resourceVersion: "7" },
  spec: { containers: [{ name: "c", image: "x", ports: [{ containerPort: 80 }] }], nodeName: "n1" },
  status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] },
});

describe("sameJson", () => {
  const table: Array<[string, unknown, unknown, boolean]> = [
    [
      "the same pod, keys in another order",
      pod(),
      { status: pod().status, spec: pod().spec, kind: "Pod", apiVersion: "v1", metadata: pod().metadata },
      true,
    ],
    ["a changed condition", pod(), { ...pod(), status: { phase: "Running", conditions: [{ type: "Ready", status: "False" }] } }, false],
    ["an added label", pod(), { ...pod(), metadata: { ...pod().metadata, labels: { app: "a", b: "c" } } }, false],
    ["a key holding undefined is absent", { a: 1, b: undefined }, { a: 1 }, true],
    ["a key holding a function is absent", { a: 1, f: () => 1 }, { a: 1 }, true],
    ["undefined and null differ in an object", { a: undefined }, { a: null }, false],
    ["an array's undefined is null", [1, undefined], [1, null], true],
    ["a hole is null", [1, , 3], [1, null, 3], true], // eslint-disable-line no-sparse-arrays
    ["non-finite numbers are null", [Number.NaN, Number.POSITIVE_INFINITY], [null, null], true],
    ["NaN equals NaN as text", { a: Number.NaN }, { a: Number.NaN }, true],
    ["-0 is 0", { a: -0 }, { a: 0 }, true],
    ["a bigint and the number with its digits", { a: 9007199254740994n }, { a: 9007199254740994 }, true],
    ["a bigint and a rounded number", { a: 9007199254740993n }, { a: 9007199254740992 }, false],
    ["a bigint and a number written with an exponent", { a: 10n ** 21n }, { a: 1e21 }, false],
    ["two equal bigints", { a: 2n ** 62n }, { a: 2n ** 62n }, true],
    ["a string is not a number", { a: "1" }, { a: 1 }, false],
    ["true is not the string", [true], ["true"], false],
    ["an array is not an object", { a: [] }, { a: {} }, false],
    ["an array with an extra property", Object.assign([1], { extra: 2 }), [1], true],
    ["arrays of other lengths", [1, 2], [1, 2, 3], false],
    ["a Date is its text", { t: new Date(0) }, { t: "1970-01-01T00:00:00.000Z" }, true],
    ["a toJSON method", { a: { toJSON: () => "x" } }, { a: "x" }, true],
    ["a __proto__ key is data", JSON.parse('{"__proto__": {"a": 1}}'), JSON.parse('{"__proto__": {"a": 2}}'), false],
    ["the same __proto__ key", JSON.parse('{"__proto__": {"a": 1}}'), JSON.parse('{"__proto__": {"a": 1}}'), true],
    ["a null-prototype object", Object.assign(Object.create(null), { a: 1 }), { a: 1 }, true],
    ["top-level undefined", undefined, undefined, true],
    ["top-level undefined and null", undefined, null, false],
    ["top-level leaves", "a", "a", true],
  ];
  it.each(table)("%s", (_name, a, b, same) => {
    expect(expectAgreement(a, b)).toBe(same);
  });

  it("compares values nested 10,000 levels deep", () => {
    const deep = (leaf: number) => {
      let value: unknown = leaf;
      for (let i = 0; i < 10_000; i++) value = i % 2 === 0 ? { a: value } : [value];
      return value;
    };
    expect(sameJson(deep(1), deep(1))).toBe(true);
    expect(sameJson(deep(1), deep(2))).toBe(false);
  });

  it("agrees with the sorted JSON texts on random values and their edits", () => {
    let seed = 12345;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const leaves = [0, -0, 1, 1.5, Number.NaN, null, undefined, "", "a", "1", true, false, 2n ** 60n, 2 ** 60, () => 0];
    const value = (depth: number): unknown => {
      const pick = random(depth > 3 ? 1 : 4);
      if (pick === 0) return leaves[random(leaves.length)];
      if (pick === 1) return Array.from({ length: random(4) }, () => value(depth + 1));
      const object: Record<string, unknown> = {};
      for (const key of ["a", "b", "c", "d"].slice(0, random(5))) object[key] = value(depth + 1);
      return object;
    };
    /** A copy with its keys in reverse order and, sometimes, one leaf replaced. */
    const edit = (v: unknown, change: { left: number }): unknown => {
      if (Array.isArray(v)) return v.map((item) => edit(item, change));
      if (v !== null && typeof v === "object") {
        const copy: Record<string, unknown> = {};
        for (const key of Object.keys(v).reverse()) copy[key] = edit((v as Record<string, unknown>)[key], change);
        if (change.left-- === 0) copy["e"] = leaves[random(leaves.length)];
        return copy;
      }
      return change.left-- === 0 ? leaves[random(leaves.length)] : v;
    };
    let same = 0;
    for (let i = 0; i < 3000; i++) {
      const a = value(0);
      if (expectAgreement(a, edit(a, { left: random(8) }))) same++;
    }
    // Both outcomes are exercised.
    expect(same).toBeGreaterThan(300);
    expect(same).toBeLessThan(2700);
  });
});
