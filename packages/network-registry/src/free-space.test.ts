import { describe, expect, it } from "vitest";
import { FreeSpace } from "./free-space.js";
import { parsePrefix } from "./parse.js";

describe("FreeSpace (buddy allocator)", () => {
  it("splits the free space into maximal aligned blocks around what is used", () => {
    const space = new FreeSpace(parsePrefix("10.0.0.0/22"), [
      parsePrefix("10.0.1.0/25"),
      parsePrefix("10.0.1.64/26"),
      parsePrefix("192.168.0.0/24"),
    ]);
    expect(space.blocks().map(String)).toEqual(["10.0.0.0/24", "10.0.1.128/25", "10.0.2.0/23"]);
    expect(space.utilization()).toMatchObject({
      size: "1024",
      used: "128",
      free: "896",
      percentUsed: 12.5,
      largestFree: "10.0.2.0/23",
      freeBlocksByLength: { 23: 1, 24: 1, 25: 1 },
    });
  });

  it("first-fit takes the lowest block, best-fit the smallest that fits, and release merges buddies", () => {
    const space = new FreeSpace(parsePrefix("10.0.0.0/22"), [parsePrefix("10.0.1.0/25")]);
    expect(space.take(25, "first-fit")?.toString()).toBe("10.0.0.0/25");
    expect(space.take(25, "best-fit")?.toString()).toBe("10.0.0.128/25");
    expect(space.take(25, "best-fit")?.toString()).toBe("10.0.1.128/25");
    expect(space.take(23)?.toString()).toBe("10.0.2.0/23");
    expect(space.take(26)).toBeUndefined();
    space.release(parsePrefix("10.0.0.128/25"));
    space.release(parsePrefix("10.0.0.0/25"));
    expect(space.blocks().map(String)).toEqual(["10.0.0.0/24"]);
    expect(() => space.take(21)).toThrow(/cannot take a \/21 from 10.0.0.0\/22/);
    expect(() => space.take(24, "worst-fit" as "best-fit")).toThrow(/unknown allocation strategy "worst-fit"/);
  });

  it("counts IPv6 space exactly", () => {
    const space = new FreeSpace(parsePrefix("fd00::/8"), [parsePrefix("fd00::/64")]);
    expect(BigInt(space.utilization().free)).toBe(2n ** 120n - 2n ** 64n);
    expect(space.take(64, "first-fit")?.toString()).toBe("fd00:0:0:1::/64");
  });

  it("refuses to release space that is not in the pool or already free, and stays intact", () => {
    const space = new FreeSpace(parsePrefix("10.0.0.0/22"), [parsePrefix("10.0.1.0/24")]);
    const before = space.blocks().map(String);
    expect(() => space.release(parsePrefix("10.0.8.0/24"))).toThrow(/not inside the pool 10.0.0.0\/22/);
    expect(() => space.release(parsePrefix("10.0.0.0/25"))).toThrow(/already free/);
    expect(() => space.release(parsePrefix("10.0.0.0/23"))).toThrow(/already free/);
    expect(space.blocks().map(String)).toEqual(before);
    space.release(parsePrefix("10.0.1.0/24"));
    expect(() => space.release(parsePrefix("10.0.1.0/24"))).toThrow(/already free/);
    expect(space.blocks().map(String)).toEqual(["10.0.0.0/22"]);
  });
});

describe("FreeSpace.takeExact", () => {
  it("takes exactly the block asked for, splitting the free block around it, and only when it is free", () => {
    const space = new FreeSpace(parsePrefix("10.0.0.0/16"), [parsePrefix("10.0.0.0/24")]);
    expect(space.takeExact(parsePrefix("10.0.7.0/24"))?.toString()).toBe("10.0.7.0/24");
    expect(space.takeExact(parsePrefix("10.0.7.0/24"))).toBeUndefined();
    expect(space.takeExact(parsePrefix("10.0.0.0/25"))).toBeUndefined();
    expect(space.takeExact(parsePrefix("10.1.0.0/24"))).toBeUndefined();
    expect(space.utilization().used).toBe("512");
    expect(space.blocks().map(String)).toEqual([
      "10.0.1.0/24",
      "10.0.2.0/23",
      "10.0.4.0/23",
      "10.0.6.0/24",
      "10.0.8.0/21",
      "10.0.16.0/20",
      "10.0.32.0/19",
      "10.0.64.0/18",
      "10.0.128.0/17",
    ]);
  });
});
