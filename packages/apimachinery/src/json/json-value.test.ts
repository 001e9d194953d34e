import { describe, expect, it } from "vitest";
import { cloneJson } from "./json-value.js";

describe("cloneJson", () => {
  it("copies every object and array, so changing the copy leaves the original alone", () => {
    const original = { metadata: { name: "a", labels: { x: "1" } }, data: [{ k: [1, 2] }, null, "s"], flag: false, none: undefined };
    const copy = cloneJson(original);
    expect(copy).toStrictEqual(original);
    copy.metadata.labels.x = "2";
    (copy.data[0] as { k: number[] }).k.push(3);
    expect(original.metadata.labels.x).toBe("1");
    expect((original.data[0] as { k: number[] }).k).toEqual([1, 2]);
    expect(copy.metadata).not.toBe(original.metadata);
  });

  it('keeps a decoded "__proto__" key as data instead of setting the copy\'s prototype', () => {
    const decoded = JSON.parse('{"__proto__":{"polluted":true},"a":1}') as Record<string, unknown>;
    const copy = cloneJson(decoded);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(["__proto__", "a"]);
    expect((copy as { polluted?: boolean }).polluted).toBeUndefined();
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"polluted":true},"a":1}');
  });

  it("keeps values that are not plain data (a Date) as their own type", () => {
    const when = new Date(0);
    const copy = cloneJson({ when });
    expect(copy.when).toBeInstanceOf(Date);
    expect(copy.when).not.toBe(when);
    expect(copy.when.getTime()).toBe(0);
  });
});
