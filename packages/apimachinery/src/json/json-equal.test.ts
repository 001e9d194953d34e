import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { jsonEqual, type JsonEqualRules } from "./json-equal.js";

/** Node 22+'s JSON.rawJSON, which TypeScript's lib does not declare yet. */
const rawJson = (text: string): unknown => (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON(text);

/** JSON text with object keys sorted and bigints written as their digits, as a server writes it. */
function sortedJson(value: unknown): string | undefined {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item === "bigint") return rawJson(item.toString());
    if (item === null || typeof item !== "object" || Array.isArray(item)) return item;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(item).sort())
      Object.defineProperty(sorted, key, { value: (item as Record<string, unknown>)[key], enumerable: true });
    return sorted;
  });
}

const JSON_TEXT: JsonEqualRules = { undefinedValue: "omitted", notPlainData: "text", text: sortedJson };
const IDENTICAL_DATA: JsonEqualRules = { undefinedValue: "unequal", notPlainData: "unequal" };

const fn = () => 0;
const shared = { a: [1, { b: 2 }] };
const sharedUndefined = { a: undefined };
const sharedNaN = { a: Number.NaN };
const date = new Date(0);
const nullPrototype = (entries: Record<string, unknown>) => Object.assign(Object.create(null) as object, entries);
const deep = (leaf: unknown) => {
  let value: unknown = leaf;
  for (let i = 0; i < 10_000; i++) value = i % 2 === 0 ? { a: value } : [value];
  return value;
};

// Each row: the case, the two values, and what each meaning answers: [JSON values, identical data, JSON text].
const table: Array<[string, unknown, unknown, [boolean, boolean, boolean]]> = [
  ["the same values, keys in another order", { a: 1, b: { c: [1, "x"] } }, { b: { c: [1, "x"] }, a: 1 }, [true, true, true]],
  ["a nested difference", { a: { b: [1, 2] } }, { a: { b: [1, 3] } }, [false, false, false]],
  ["a key holding undefined and no key", { a: 1, b: undefined }, { a: 1 }, [false, false, true]],
  ["a key holding undefined on both sides", { a: undefined }, { a: undefined }, [true, false, true]],
  ["undefined and null", { a: undefined }, { a: null }, [false, false, false]],
  ["top-level undefined", undefined, undefined, [true, false, true]],
  ["top-level undefined and null", undefined, null, [false, false, false]],
  ["an array item undefined and null", [1, undefined], [1, null], [false, false, true]],
  ["a hole and undefined", [1, , 3], [1, undefined, 3], [true, false, true]], // eslint-disable-line no-sparse-arrays
  ["a key holding a function and no key", { a: 1, f: fn }, { a: 1 }, [false, false, true]],
  ["the same function", { f: fn }, { f: fn }, [true, true, true]],
  ["two functions", { f: fn }, { f: () => 0 }, [false, false, true]],
  ["an array and an object", { a: [] }, { a: {} }, [false, false, false]],
  ["an object and an array at the top", {}, [], [false, false, false]],
  ["arrays of other lengths", [1, 2], [1, 2, 3], [false, false, false]],
  ["an array with an extra property", Object.assign([1], { extra: 2 }), [1], [true, true, true]],
  ["-0 and 0", { a: -0 }, { a: 0 }, [true, true, true]],
  ["NaN and NaN", { a: Number.NaN }, { a: Number.NaN }, [false, false, true]],
  ["NaN and null", [Number.NaN, Number.POSITIVE_INFINITY], [null, null], [false, false, true]],
  ["two equal bigints", { a: 2n ** 62n }, { a: 2n ** 62n }, [true, true, true]],
  ["a bigint and the number with its digits", { a: 9007199254740994n }, { a: 9007199254740994 }, [false, false, true]],
  ["a bigint and a rounded number", { a: 9007199254740993n }, { a: 9007199254740992 }, [false, false, false]],
  ["a string and a number", { a: "1" }, { a: 1 }, [false, false, false]],
  ["one object on both sides", shared, shared, [true, true, true]],
  ["one object holding undefined on both sides", sharedUndefined, sharedUndefined, [true, false, true]],
  ["one object holding NaN on both sides", sharedNaN, sharedNaN, [true, false, true]],
  ["two Dates", { t: new Date(0) }, { t: new Date(1) }, [true, false, false]],
  ["one Date on both sides", { t: date }, { t: date }, [true, false, true]],
  ["a Date and its text", { t: new Date(0) }, { t: "1970-01-01T00:00:00.000Z" }, [false, false, true]],
  ["a toJSON method and its result", { a: { toJSON: () => "x" } }, { a: "x" }, [false, false, true]],
  ["a null-prototype object", nullPrototype({ a: 1 }), { a: 1 }, [true, true, true]],
  ["a __proto__ key is data", JSON.parse('{"__proto__": {"a": 1}}'), JSON.parse('{"__proto__": {"a": 2}}'), [false, false, false]],
  ["the same __proto__ key", JSON.parse('{"__proto__": {"a": 1}}'), JSON.parse('{"__proto__": {"a": 1}}'), [true, true, true]],
  ["10,000 levels deep", deep(1), deep(1), [true, true, true]],
  ["10,000 levels deep, the leaf differs", deep(1), deep(2), [false, false, false]],
];

describe("jsonEqual", () => {
  it.each(table)("%s", (_name, a, b, [values, identical, text]) => {
    expect([jsonEqual(a, b), jsonEqual(a, b, IDENTICAL_DATA), jsonEqual(a, b, JSON_TEXT)]).toEqual([values, identical, text]);
    expect([jsonEqual(b, a), jsonEqual(b, a, IDENTICAL_DATA), jsonEqual(b, a, JSON_TEXT)]).toEqual([values, identical, text]);
  });

  it("asks the JSON text of the whole values only when a walk meets a value JSON.stringify converts", () => {
    const texts: unknown[] = [];
    const counting: JsonEqualRules = { ...JSON_TEXT, text: (value) => (texts.push(value), sortedJson(value)) };
    expect(jsonEqual({ a: [1, { b: null }] }, { a: [1, { b: null }] }, counting)).toBe(true);
    expect(texts).toEqual([]);
    const a = { a: 1, t: new Date(0) };
    const b = { t: "1970-01-01T00:00:00.000Z", a: 1 };
    expect(jsonEqual(a, b, counting)).toBe(true);
    expect(texts).toEqual([a, b]);
  });

  describe("agrees on random values and their edits with what each meaning says", () => {
    // mulberry32: the same values on every run.
    let seed = 20_261_129;
    const random = (n: number) => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) % n;
    };
    /** Random values from `leaves`, nested in arrays and objects, and a copy with keys reversed and maybe one leaf changed. */
    function pairs(leaves: readonly unknown[], count: number): Array<[unknown, unknown]> {
      const value = (depth: number): unknown => {
        const pick = random(depth > 3 ? 1 : 4);
        if (pick === 0) return leaves[random(leaves.length)];
        if (pick === 1) return Array.from({ length: random(4) }, () => value(depth + 1));
        const object: Record<string, unknown> = {};
        for (const key of ["a", "b", "c", "__proto__"].slice(0, random(5)))
          Object.defineProperty(object, key, { value: value(depth + 1), enumerable: true });
        return object;
      };
      const edit = (v: unknown, change: { left: number }): unknown => {
        // Sometimes the edit keeps the very same subtree.
        if (random(8) === 0) return v;
        if (Array.isArray(v)) return v.map((item) => edit(item, change));
        if (v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
          const copy: Record<string, unknown> = {};
          for (const key of Object.keys(v).reverse())
            Object.defineProperty(copy, key, { value: edit((v as Record<string, unknown>)[key], change), enumerable: true });
          if (change.left-- === 0) copy["e"] = leaves[random(leaves.length)];
          return copy;
        }
        return change.left-- === 0 ? leaves[random(leaves.length)] : v;
      };
      return Array.from({ length: count }, () => {
        const a = value(0);
        return [a, edit(a, { left: random(8) })];
      });
    }
    /** How many pairs each meaning found equal: both answers must be well exercised. */
    const expectBothAnswers = (answers: boolean[]) => {
      const equal = answers.filter(Boolean).length;
      expect(equal).toBeGreaterThan(answers.length / 10);
      expect(equal).toBeLessThan((answers.length * 9) / 10);
    };
    // Leaves on which node's deep strict equality says what JSON values mean (no NaN, -0, Dates).
    const plainLeaves = [0, 1, 1.5, null, undefined, "", "a", "1", true, false, 2n ** 60n, 2 ** 60, fn, () => 0, shared, { a: undefined }];

    it("JSON values: node's deep strict equality", () => {
      const answers = pairs(plainLeaves, 3000).map(([a, b]) => {
        const equal = isDeepStrictEqual(a, b);
        expect(jsonEqual(a, b)).toBe(equal);
        expect(jsonEqual(b, a)).toBe(equal);
        return equal;
      });
      expectBothAnswers(answers);
    });

    it("identical data: deep strict equality of values holding nothing undefined, no NaN and no object of another kind", () => {
      const holdsOnlyData = (value: unknown): boolean => {
        if (value === undefined || Number.isNaN(value)) return false;
        if (typeof value !== "object" || value === null) return true;
        if (Array.isArray(value)) return Array.from(value).every(holdsOnlyData);
        const prototype: unknown = Object.getPrototypeOf(value);
        return (prototype === Object.prototype || prototype === null) && Object.values(value).every(holdsOnlyData);
      };
      const answers = pairs([...plainLeaves, Number.NaN, new Date(0), date], 3000).map(([a, b]) => {
        const equal = holdsOnlyData(a) && holdsOnlyData(b) && isDeepStrictEqual(a, b);
        expect(jsonEqual(a, b, IDENTICAL_DATA)).toBe(equal);
        expect(jsonEqual(b, a, IDENTICAL_DATA)).toBe(equal);
        return equal;
      });
      expectBothAnswers(answers);
    });

    it("JSON text: the sorted JSON texts", () => {
      const leaves = [
        ...plainLeaves,
        -0,
        Number.NaN,
        Number.POSITIVE_INFINITY,
        Symbol("s"),
        1n,
        date,
        new Date(1),
        "1970-01-01T00:00:00.000Z",
        { toJSON: () => "x" },
        "x",
      ];
      const answers = pairs(leaves, 3000).map(([a, b]) => {
        const equal = sortedJson(a) === sortedJson(b);
        expect(jsonEqual(a, b, JSON_TEXT)).toBe(equal);
        expect(jsonEqual(b, a, JSON_TEXT)).toBe(equal);
        return equal;
      });
      expectBothAnswers(answers);
    });
  });
});
