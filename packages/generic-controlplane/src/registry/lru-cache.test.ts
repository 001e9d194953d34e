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

  it("refuses a capacity that holds nothing", () => {
    expect(() => new LruCache(0)).toThrow("invalid capacity 0: want a whole number above 0");
  });
});
