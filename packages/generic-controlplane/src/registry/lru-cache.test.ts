import { describe, expect, it } from "vitest";
import { LruCache } from "./lru-cache.js";

describe("LruCache", () => {
  it("drops the least recently used entry beyond its capacity, a read counting as use", () => {
    const cache = new LruCache<string, number>(2);
    cache.set("a", 1);
    cache.set("b", 2);
    expect(cache.get("a")).toBe(1);
    cache.set("c", 3);
    expect(cache.get("b")).toBeUndefined();
    expect([cache.get("a"), cache.get("c"), cache.size]).toEqual([1, 3, 2]);
    cache.set("a", 4);
    cache.set("d", 5);
    expect([cache.has("c"), cache.get("a"), cache.get("d")]).toEqual([false, 4, 5]);
  });

  it("keeps an entry that is read while newer ones come, as long as it is read within half the capacity", () => {
    const cache = new LruCache<number, number>(8);
    cache.set(0, 0);
    for (let i = 1; i <= 20; i++) {
      expect(cache.get(0)).toBe(0);
      cache.set(i, i);
    }
    expect(cache.get(0)).toBe(0);
    expect(cache.size).toBe(8);
    expect(cache.get(1)).toBeUndefined();
  });

  it("refuses a capacity that holds nothing", () => {
    expect(() => new LruCache(0)).toThrow("invalid capacity 0: want a whole number above 0");
  });
});
