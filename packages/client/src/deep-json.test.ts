import { describe, expect, it } from "vitest";
import { parseValidJsonIteratively, stringifyIteratively } from "./deep-json.js";
import { parseExactJson, sortedExactJson, stringifyExactJson } from "./exact-json.js";

/** JSON.stringify is the oracle: the iterative writer must spell plain data exactly as it does. */
const plainLeaf = (value: unknown): string | undefined => JSON.stringify(value);
const asIs = (_source: string, value: number): unknown => value;

const samples: unknown[] = [
  null,
  0,
  -1.5e-7,
  'a"b\\c\u0000\u2028',
  [],
  {},
  [1, [2, [3, []]], { a: {} }],
  { z: 1, a: [true, false, null], "": { __proto__: { x: "y" } }, "1": "numeric keys come first" },
  { skipped: undefined, kept: 1, fn: () => 1 },
  [undefined, () => 1],
];

describe("stringifyIteratively", () => {
  it.each(samples.map((sample) => [sample]))("writes %j as JSON.stringify does, with and without indentation", (sample) => {
    expect(stringifyIteratively(sample, plainLeaf)).toBe(JSON.stringify(sample));
    expect(stringifyIteratively(sample, plainLeaf, 2)).toBe(JSON.stringify(sample, null, 2));
  });

  it("writes sorted keys on request", () => {
    expect(stringifyIteratively({ b: 1, a: { d: 2, c: 3 } }, plainLeaf, 0, true)).toBe('{"a":{"c":3,"d":2},"b":1}');
  });
});

describe("parseValidJsonIteratively", () => {
  it.each(samples.filter((sample) => JSON.stringify(sample) !== undefined).map((sample) => [JSON.stringify(sample)]))(
    "reads %s as JSON.parse does",
    (text) => {
      expect(parseValidJsonIteratively(text, asIs)).toEqual(JSON.parse(text));
    },
  );

  it("keeps __proto__ an own key and the last of duplicate keys, as JSON.parse does", () => {
    const text = '{"__proto__":{"polluted":true},"a":1,"a":2}';
    const parsed = parseValidJsonIteratively(text, asIs) as Record<string, unknown>;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.keys(parsed)).toEqual(Object.keys(JSON.parse(text) as object));
    expect(parsed["a"]).toBe(2);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("hands every number literal, with its holder and key, to the reviver", () => {
    const seen: Array<[string, string]> = [];
    parseValidJsonIteratively('{"a":[10,2.5e3],"b":-0}', (source, value, _holder, key) => {
      seen.push([key, source]);
      return value;
    });
    expect(seen).toEqual([
      ["0", "10"],
      ["1", "2.5e3"],
      ["b", "-0"],
    ]);
  });
});

describe("exact JSON nested 10,000 levels deep", () => {
  const depth = 10_000;
  const arrays = `{"n":9007199254740993,"deep":${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}}`;
  const objects = `${'{"a":'.repeat(depth)}9223372036854775807${"}".repeat(depth)}`;

  it("parses past the reviver's recursion and keeps int64s exact", () => {
    expect((): unknown => JSON.parse(arrays, (_key, value: unknown) => value)).toThrow(RangeError);
    const parsed = parseExactJson(arrays) as { n: unknown };
    expect(parsed.n).toBe(9007199254740993n);
    let leaf: unknown = parseExactJson(objects);
    for (let level = 0; level < depth; level++) leaf = (leaf as { a: unknown }).a;
    expect(leaf).toBe(9223372036854775807n);
  });

  it("writes past JSON.stringify's recursion, bigints exact, sorted or not", () => {
    const parsed = parseExactJson(objects);
    expect(() => JSON.stringify(JSON.parse(objects))).toThrow(RangeError);
    expect(stringifyExactJson(parsed)).toBe(objects);
    expect(sortedExactJson(parsed)).toBe(objects);
    expect(stringifyExactJson(parseExactJson(arrays))).toBe(arrays);
  });
});
