import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ClusterIPAllocator, formatIP, parseIP, parseIPv4 } from "./cluster-ip.js";
import { NodePortAllocator } from "./node-port.js";

describe("ClusterIPAllocator", () => {
  it("hands out every address of the range but the network and broadcast address, then reports it full", () => {
    const allocator = new ClusterIPAllocator("10.96.0.0/29");
    const got = new Set<string>();
    for (let i = 0; i < 6; i++) got.add(allocator.allocateNext());
    expect([...got].sort()).toEqual(["10.96.0.1", "10.96.0.2", "10.96.0.3", "10.96.0.4", "10.96.0.5", "10.96.0.6"]);
    expect(() => allocator.allocateNext()).toThrow("range is full");
  });

  it("refuses an address twice and outside the range with upstream's wording", () => {
    const allocator = new ClusterIPAllocator("10.96.0.0/16");
    allocator.allocate("10.96.0.10");
    expect(() => allocator.allocate("10.96.0.10")).toThrow("provided IP is already allocated");
    expect(() => allocator.allocate("10.97.0.1")).toThrow(
      "the provided IP (10.97.0.1) is not in the valid range. The range of valid IPs is 10.96.0.0/16",
    );
    expect(() => allocator.allocate("10.96.0.0")).toThrow("not in the valid range");
    allocator.release("10.96.0.10");
    expect(() => allocator.allocate("10.96.0.10")).not.toThrow();
  });

  it("allocates from an IPv6 range as upstream: the network address skipped, the range capped at 65536 addresses, addresses printed as Go does", () => {
    const small = new ClusterIPAllocator("fd00:10:96::/125");
    expect(small.family).toBe("IPv6");
    const got = new Set<string>();
    for (let i = 0; i < 7; i++) got.add(small.allocateNext());
    expect([...got].sort()).toEqual([
      "fd00:10:96::1",
      "fd00:10:96::2",
      "fd00:10:96::3",
      "fd00:10:96::4",
      "fd00:10:96::5",
      "fd00:10:96::6",
      "fd00:10:96::7",
    ]);
    expect(() => small.allocateNext()).toThrow("range is full");

    const big = new ClusterIPAllocator("fd00:10:96::/108");
    expect(big.capacity).toBe(65_535);
    big.allocate("fd00:10:96:0:0:0:0:a");
    expect(big.isAllocated("fd00:10:96::a")).toBe(true);
    expect(() => big.allocate("fd00:10:96::A")).toThrow("provided IP is already allocated");
    expect(() => big.allocate("fd00:10:96::1:0")).toThrow(
      "the provided IP (fd00:10:96::1:0) is not in the valid range. The range of valid IPs is fd00:10:96::/108",
    );
    expect(() => big.allocate("10.96.0.1")).toThrow("not in the valid range");
    expect(new ClusterIPAllocator("10.96.0.0/16").contains("fd00:10:96::1")).toBe(false);
  });

  it("parses both families and formats IPv6 as RFC 5952", () => {
    expect(parseIP("10.0.0.1")).toEqual({ family: "IPv4", value: 0x0a000001n });
    expect(formatIP(parseIP("2001:DB8:0:0:1:0:0:1")!)).toBe("2001:db8::1:0:0:1");
    expect(formatIP(parseIP("fd00:0:0:0:0:0:0:1")!)).toBe("fd00::1");
    for (const bad of ["fe80::1%eth0", "1::2::3", "10.0.0.01", ""]) expect(parseIP(bad)).toBeUndefined();
  });

  it("rejects a range with host bits or a bad prefix", () => {
    expect(() => new ClusterIPAllocator("10.96.0.1/16")).toThrow("host bits");
    expect(() => new ClusterIPAllocator("10.96.0.0/33")).toThrow("invalid service CIDR");
    expect(() => new ClusterIPAllocator("10.96.0/16")).toThrow("invalid service CIDR");
  });

  it("never hands out an address twice, and every released address can be had again (random histories)", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.constant("next" as const),
            fc.nat(40).map((n) => ({ release: n })),
          ),
          { maxLength: 200 },
        ),
        fc.nat(),
        (ops, seed) => {
          let state = seed;
          const allocator = new ClusterIPAllocator("10.0.0.0/27", (max) => (state = (state * 1103515245 + 12345) >>> 0) % max);
          const held: string[] = [];
          for (const op of ops) {
            if (op === "next") {
              if (held.length === allocator.capacity) {
                expect(() => allocator.allocateNext()).toThrow("range is full");
                continue;
              }
              const ip = allocator.allocateNext();
              expect(held).not.toContain(ip);
              expect(allocator.contains(ip)).toBe(true);
              held.push(ip);
            } else if (held.length > 0) {
              const [ip] = held.splice(op.release % held.length, 1);
              allocator.release(ip!);
              expect(allocator.isAllocated(ip!)).toBe(false);
            }
            expect(allocator.used).toBe(held.length);
          }
        },
      ),
    );
  });

  it("parses only canonical dotted quads", () => {
    expect(parseIPv4("10.0.0.1")).toBe(0x0a000001);
    for (const bad of ["10.0.0", "10.0.0.01", "256.0.0.1", "1.2.3.4.5", "a.b.c.d", "+1.0.0.0"]) expect(parseIPv4(bad)).toBeUndefined();
  });
});

describe("NodePortAllocator", () => {
  it("serves 30000-32767 by default with upstream's errors", () => {
    const allocator = new NodePortAllocator();
    expect(allocator.range).toBe("30000-32767");
    allocator.allocate(30080);
    expect(() => allocator.allocate(30080)).toThrow("provided port is already allocated");
    expect(() => allocator.allocate(29999)).toThrow("provided port is not in the valid range. The range of valid ports is 30000-32767");
    expect(() => allocator.allocate(32768)).toThrow("not in the valid range");
    allocator.release(30080);
    expect(() => allocator.allocate(30080)).not.toThrow();
  });

  it("allocates distinct in-range ports until full, and a released port is free again (random histories)", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.constant("next" as const),
            fc.nat(40).map((n) => ({ release: n })),
          ),
          { maxLength: 200 },
        ),
        fc.nat(),
        (ops, seed) => {
          let state = seed;
          const allocator = new NodePortAllocator({ base: 31000, size: 20 }, (max) => (state = (state * 1103515245 + 12345) >>> 0) % max);
          const held: number[] = [];
          for (const op of ops) {
            if (op === "next") {
              if (held.length === allocator.size) {
                expect(() => allocator.allocateNext()).toThrow("range is full");
                continue;
              }
              const port = allocator.allocateNext();
              expect(port).toBeGreaterThanOrEqual(31000);
              expect(port).toBeLessThan(31020);
              expect(held).not.toContain(port);
              held.push(port);
            } else if (held.length > 0) {
              const [port] = held.splice(op.release % held.length, 1);
              allocator.release(port!);
              expect(() => allocator.allocate(port!)).not.toThrow();
              allocator.release(port!);
            }
            expect(allocator.used).toBe(held.length);
          }
        },
      ),
    );
  });
});
