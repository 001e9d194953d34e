import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { KubeObject } from "../api/types.js";
import { controllerFor, controllerOwnerKey } from "./builder.js";
import { runWorkers } from "./runtime.js";
import { CONFIGMAPS, SECRETS, eventually, startControllers, type ControllerHarness } from "./test-support.js";
import { ExponentialRateLimiter, WorkQueue } from "./workqueue.js";

let h: ControllerHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const CONFIGMAP = { ...CONFIGMAPS, kind: "ConfigMap" };

function ownedBy(owner: KubeObject) {
  return [{ apiVersion: "v1", kind: "ConfigMap", name: owner.metadata?.name ?? "", uid: owner.metadata?.uid ?? "", controller: true }];
}

async function metric(harness: ControllerHarness, name: string, queue: string): Promise<number> {
  const found = (await harness.registry.getSingleMetric(name)?.get())?.values.find((v) => v.labels["name"] === queue);
  return found?.value ?? 0;
}

describe("controllerFor", () => {
  it("reconciles the key of each primary object from a synced cache, with workqueue metrics under its queue name", async () => {
    const seen: Array<{ key: string; data: unknown }> = [];
    const controller = controllerFor(CONFIGMAP)
      .named("mirror")
      .withOptions({ queueName: "mirror_queue", workers: 2 })
      .complete((key, ctx) => {
        seen.push({ key, data: (ctx.primary.cache.get(key) as { data?: unknown } | undefined)?.data });
      });
    expect(controller.name).toBe("mirror");
    h = await startControllers([controller]);
    await h.client.create(CONFIGMAPS, "default", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" }, data: { k: "v" } });
    await eventually("a reconcile of default/a", () => seen.find((s) => s.key === "default/a"));
    expect(seen.find((s) => s.key === "default/a")?.data).toEqual({ k: "v" });
    expect(await metric(h, "workqueue_adds_total", "mirror_queue")).toBeGreaterThan(0);
  });

  it("owns: a change to an owned object enqueues its controlling owner, and its former one when the owner changes", async () => {
    const keys: string[] = [];
    h = await startControllers([
      controllerFor(CONFIGMAP, { on: [] })
        .owns(SECRETS)
        .complete((key) => {
          keys.push(key);
        }),
    ]);
    const { client } = h;
    const first = await client.create(CONFIGMAPS, "default", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "first" } });
    const second = await client.create(CONFIGMAPS, "default", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "second" } });
    await client.create(SECRETS, "default", { apiVersion: "v1", kind: "Secret", metadata: { name: "s", ownerReferences: ownedBy(first) } });
    await eventually("the owner enqueued", () => (keys.includes("default/first") ? true : undefined));
    keys.length = 0;
    await client.patch(SECRETS, "default", "s", { metadata: { ownerReferences: ownedBy(second) } });
    await eventually("both owners enqueued", () => (keys.includes("default/first") && keys.includes("default/second") ? true : undefined));
  });

  it("watches: an event enqueues the keys the map function gives", async () => {
    const keys: string[] = [];
    h = await startControllers([
      controllerFor(CONFIGMAP, { on: [] })
        .watches(SECRETS, (secret) => [`default/for-${secret.metadata?.name}`, "default/all"], { on: ["delete"] })
        .complete((key) => {
          keys.push(key);
        }),
    ]);
    await h.client.create(SECRETS, "default", { apiVersion: "v1", kind: "Secret", metadata: { name: "s" } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(keys).toEqual([]);
    await h.client.delete(SECRETS, "default", "s");
    await eventually("the mapped keys", () => (keys.includes("default/for-s") && keys.includes("default/all") ? true : undefined));
  });

  it("requeues a key after a throw (rate limited), after requeueAfterMs and on requeue, with state made per run and cleanups at stop", async () => {
    const attempts = new Map<string, number>();
    let cleaned = 0;
    const controller = controllerFor(CONFIGMAP)
      .withState(() => ({ runs: 0 }))
      .withOptions({ rateLimiter: new ExponentialRateLimiter(10, 100) })
      .complete((key, ctx) => {
        if (ctx.state.runs++ === 0) ctx.onStop(() => void cleaned++);
        const n = (attempts.get(key) ?? 0) + 1;
        attempts.set(key, n);
        if (n >= 3) return;
        if (key === "default/throws") throw new Error("not yet");
        if (key === "default/after") return { requeueAfterMs: 50 };
        return { requeue: true };
      });
    h = await startControllers([controller]);
    for (const name of ["throws", "after", "again"])
      await h.client.create(CONFIGMAPS, "default", { apiVersion: "v1", kind: "ConfigMap", metadata: { name } });
    await eventually("three attempts of each", () =>
      ["throws", "after", "again"].every((n) => attempts.get(`default/${n}`) === 3) ? true : undefined,
    );
    expect(h.logs.filter((r) => r.msg === "reconcile failed, requeuing").map((r) => r["key"])).toEqual([
      "default/throws",
      "default/throws",
    ]);
    expect(await metric(h, "workqueue_retries_total", "configmaps")).toBe(4);
    await h.close();
    h = undefined;
    expect(cleaned).toBe(1);
  });

  it("owns needs the primary's kind", () => {
    expect(() => controllerFor(CONFIGMAPS).owns(SECRETS)).toThrow(/needs its kind/);
  });
});

describe("controllerOwnerKey", () => {
  it("is the controlling owner's key when group and kind match, whatever the version", () => {
    const pod = {
      metadata: {
        namespace: "ns",
        ownerReferences: [{ apiVersion: "apps/v1beta2", kind: "ReplicaSet", name: "rs", uid: "u", controller: true }],
      },
    };
    expect(controllerOwnerKey(pod, "apps", "ReplicaSet")).toBe("ns/rs");
    expect(controllerOwnerKey(pod, "", "ReplicaSet")).toBeUndefined();
    expect(controllerOwnerKey(pod, "apps", "Deployment")).toBeUndefined();
    expect(
      controllerOwnerKey(
        { metadata: { namespace: "ns", ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "rs", uid: "u" }] } },
        "apps",
        "ReplicaSet",
      ),
    ).toBeUndefined();
  });
});

describe("runWorkers", () => {
  it("re-adds a key rate limited when the reconcile asks requeue, without logging a failure", async () => {
    const limiter = new ExponentialRateLimiter(1, 10);
    const waits: string[] = [];
    const queue = new WorkQueue({
      name: "t",
      rateLimiter: {
        when: (key) => (waits.push(key), limiter.when(key)),
        forget: (key) => limiter.forget(key),
        retries: (key) => limiter.retries(key),
      },
    });
    const logs: unknown[] = [];
    let calls = 0;
    queue.add("k");
    const workers = runWorkers(
      queue,
      1,
      () => Promise.resolve(++calls < 3 ? { requeue: true } : undefined),
      (r) => logs.push(r),
    );
    await eventually("three calls", () => (calls === 3 ? true : undefined));
    expect(waits).toEqual(["k", "k"]);
    expect(queue.numRequeues("k")).toBe(0);
    expect(logs).toEqual([]);
    queue.shutDown();
    await workers;
  });
});

describe("the README", () => {
  it("shows test/readme-controller-builder-example.test.ts verbatim", () => {
    const root = join(import.meta.dirname, "..", "..");
    const example = readFileSync(join(root, "test", "readme-controller-builder-example.test.ts"), "utf8");
    expect(readFileSync(join(root, "README.md"), "utf8")).toContain("```ts fragment\n" + example + "```\n");
  });
});
