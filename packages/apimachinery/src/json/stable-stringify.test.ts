import { describe, expect, it } from "vitest";
import { stableStringify } from "./stable-stringify.js";

describe("stableStringify", () => {
  it.each<[string, unknown, string]>([
    ["keys sorted at every level", { b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } }, '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}'],
    ["keys sorted by UTF-16 code units, not locale", { b: 1, B: 2, ä: 3, "10": 4, "9": 5 }, '{"10":4,"9":5,"B":2,"b":1,"ä":3}'],
    ["a field holding undefined left out", { a: undefined, b: [1], c: { d: undefined } }, '{"b":[1],"c":{}}'],
    ["strings and keys escaped as JSON", { 'k"\n': 'v"\\\u2028' }, '{"k\\"\\n":"v\\"\\\\\u2028"}'],
    ["numbers, booleans and null as JSON writes them", [1e21, -0, 0.1, Number.NaN, true, null], "[1e+21,0,0.1,null,true,null]"],
    ["an empty object and array", { a: {}, b: [] }, '{"a":{},"b":[]}'],
    ["a decoded __proto__ key is data", JSON.parse('{"__proto__":{"x":1},"a":2}'), '{"__proto__":{"x":1},"a":2}'],
    ["a top-level string", "a", '"a"'],
  ])("%s", (_name, value, text) => {
    expect(stableStringify(value)).toBe(text);
  });

  it("gives two values that differ only in key order the same text", () => {
    const spec = { containers: [{ name: "c", image: "x", ports: [{ containerPort: 80, protocol: "TCP" }] }], nodeName: "n" };
    const reordered = { nodeName: "n", containers: [{ ports: [{ protocol: "TCP", containerPort: 80 }], image: "x", name: "c" }] };
    expect(stableStringify(reordered)).toBe(stableStringify(spec));
    expect(stableStringify({ ...spec, nodeName: "m" })).not.toBe(stableStringify(spec));
  });
});
