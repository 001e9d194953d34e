import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { runWorkers } from "./runtime.js";
import { ExponentialRateLimiter, WorkQueue } from "./workqueue.js";

describe("WorkQueue", () => {
  it("holds a waiting key once however often it is added, in first-added order", async () => {
    const queue = new WorkQueue({ name: "t" });
    queue.add("a");
    queue.add("b");
    queue.add("a");
    expect(queue.length).toBe(2);
    expect(await queue.get()).toBe("a");
    expect(await queue.get()).toBe("b");
  });

  it("never hands out a key being processed; an add meanwhile re-queues it on done", async () => {
    const queue = new WorkQueue({ name: "t" });
    queue.add("a");
    expect(await queue.get()).toBe("a");
    queue.add("a");
    expect(queue.length).toBe(0);
    const next = queue.get();
    let handed: string | undefined;
    void next.then((key) => (handed = key));
    await Promise.resolve();
    expect(handed).toBeUndefined();
    queue.done("a");
    expect(await next).toBe("a");
  });

  it("backs off exponentially per key and forgets on success", () => {
    const limiter = new ExponentialRateLimiter(5, 1000);
    expect([limiter.when("k"), limiter.when("k"), limiter.when("k"), limiter.when("other")]).toEqual([5, 10, 20, 5]);
    expect(limiter.retries("k")).toBe(3);
    for (let i = 0; i < 20; i++) limiter.when("k");
    expect(limiter.when("k")).toBe(1000);
    limiter.forget("k");
    expect(limiter.when("k")).toBe(5);
  });

  it("shutDownWithDrain finishes when the last key in progress was added again meanwhile", async () => {
    const queue = new WorkQueue({ name: "t" });
    queue.add("a");
    expect(await queue.get()).toBe("a");
    queue.add("a");
    const drained = queue.shutDownWithDrain();
    let finished = false;
    void drained.then(() => (finished = true));
    queue.done("a");
    await drained;
    expect(finished).toBe(true);
    // Nothing is handed out after shutdown, the re-added key included.
    expect(await queue.get()).toBeUndefined();
  });

  it("shutDown resolves waiting gets with undefined and drops delayed adds", async () => {
    const queue = new WorkQueue({ name: "t" });
    const waiting = queue.get();
    queue.addAfter("later", 10_000);
    queue.shutDown();
    expect(await waiting).toBeUndefined();
    queue.add("x");
    expect(await queue.get()).toBeUndefined();
  });

  it("runs at most `workers` reconciles at once, never two of one key, and retries failures rate limited", async () => {
    const registry = new Registry();
    const queue = new WorkQueue({ name: "work", registry, rateLimiter: new ExponentialRateLimiter(1, 10) });
    let running = 0;
    let maxRunning = 0;
    const active = new Set<string>();
    let overlap = false;
    const failures = new Map<string, number>();
    const processed: string[] = [];
    let release!: () => void;
    const allDone = new Promise<void>((resolve) => (release = resolve));
    const keys = ["a", "b", "c", "d", "e", "f"];
    // Added twice while waiting: held once.
    for (const key of keys) {
      queue.add(key);
      queue.add(key);
    }
    const workers = runWorkers(queue, 3, async (key) => {
      if (active.has(key)) overlap = true;
      active.add(key);
      maxRunning = Math.max(maxRunning, ++running);
      await new Promise((resolve) => setImmediate(resolve));
      running--;
      active.delete(key);
      // "c" fails twice before it succeeds.
      if (key === "c" && (failures.get(key) ?? 0) < 2) {
        failures.set(key, (failures.get(key) ?? 0) + 1);
        throw new Error("transient");
      }
      processed.push(key);
      if (keys.every((k) => processed.includes(k))) release();
    });
    await allDone;
    queue.shutDown();
    await workers;
    expect(maxRunning).toBe(3);
    expect(overlap).toBe(false);
    expect(processed.filter((k) => k === "a")).toHaveLength(1);
    const text = await registry.metrics();
    expect(text).toContain('workqueue_adds_total{name="work"} 8');
    expect(text).toContain('workqueue_retries_total{name="work"} 2');
    expect(text).toContain('workqueue_depth{name="work"} 0');
    for (const name of [
      "workqueue_queue_duration_seconds_count",
      "workqueue_work_duration_seconds_count",
      "workqueue_unfinished_work_seconds",
      "workqueue_longest_running_processor_seconds",
    ]) {
      expect(text).toContain(name);
    }
  });
});
