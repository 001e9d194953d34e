import { describe, expect, it } from "vitest";
import { SchedulingQueue } from "./queue.js";

// After pkg/scheduler/framework/plugins/queuesort's TestLess: higher priority first, then older.
describe("SchedulingQueue", () => {
  const pods: Record<string, { priority: number; created: number }> = {
    low: { priority: 0, created: 1000 },
    high: { priority: 100, created: 3000 },
    "high-older": { priority: 100, created: 2000 },
    "low-same-age": { priority: 0, created: 1000 },
  };
  const order = (key: string) => pods[key] ?? { priority: 0, created: 0 };

  it("hands out higher priority first, then older, then first queued", async () => {
    const queue = new SchedulingQueue(order);
    for (const key of ["low", "high", "low-same-age", "high-older"]) queue.add(key);
    const seen: string[] = [];
    for (let i = 0; i < 4; i++) {
      const key = (await queue.pop())!;
      seen.push(key);
      queue.done(key);
    }
    expect(seen).toEqual(["high-older", "high", "low", "low-same-age"]);
    expect(queue.length).toBe(0);
  });

  it("holds a key once, and queues a key added during its attempt again after done", async () => {
    const queue = new SchedulingQueue(order);
    queue.add("low");
    queue.add("low");
    expect(queue.length).toBe(1);
    const key = await queue.pop();
    queue.add("low");
    expect(queue.length).toBe(0);
    queue.done(key!);
    expect(queue.length).toBe(1);
  });

  it("answers a waiting pop with the first in order of the keys added together", async () => {
    const queue = new SchedulingQueue(order);
    const waiting = queue.pop();
    queue.add("low");
    queue.add("high");
    expect(await waiting).toBe("high");
    expect(queue.length).toBe(1);
  });

  it("wakes a waiting pop, forgets removed keys, and resolves undefined after shutdown", async () => {
    const queue = new SchedulingQueue(order);
    const waiting = queue.pop();
    queue.add("high");
    expect(await waiting).toBe("high");
    queue.add("low");
    queue.forget("low");
    expect(queue.length).toBe(0);
    const pending = queue.pop();
    queue.shutDown();
    expect(await pending).toBeUndefined();
    expect(await queue.pop()).toBeUndefined();
  });
});
