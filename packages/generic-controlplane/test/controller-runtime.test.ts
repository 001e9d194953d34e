import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createControlPlane, type ControlPlane, type KubeObject } from "../src/index.js";
import { createResourceStore } from "../src/registry/index.js";
import { configMapsResource } from "../src/control-plane/builtin-resources.js";
import { createSqliteStorage } from "../src/storage/index.js";
import { Informer, KubeClient, WorkQueue, isNotFound, runWorkers, splitKey, type ResourceRef } from "../src/controllers/index.js";

// A controller written with the runtime (informer + work queue + workers) over real HTTP keeps a
// correct cache, and so correct results, through a server restart during which its history was
// compacted away (the resumed watch answers 410 and the informer relists).

const CONFIGMAPS: ResourceRef = { group: "", version: "v1", resource: "configmaps", namespaced: true };
const SECRETS: ResourceRef = { group: "", version: "v1", resource: "secrets", namespaced: true };

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Mirrors every configmap labelled `mirror=yes` in `default` into a secret `mirror-<name>`, and removes mirrors of configmaps that went. */
function startMirrorController(client: KubeClient) {
  const informer = new Informer(client, CONFIGMAPS, {
    namespace: "default",
    labelSelector: "mirror=yes",
    minWatchTimeoutSeconds: 1,
    initialBackoffMs: 20,
    maxBackoffMs: 200,
  });
  const queue = new WorkQueue({ name: "mirror" });
  const enqueue = (object: KubeObject) => queue.add(`${object.metadata?.namespace}/${object.metadata?.name}`);
  informer.addEventHandler({ add: enqueue, update: (_old, object) => enqueue(object), delete: enqueue });
  informer.start();
  const workers = runWorkers(queue, 2, async (key) => {
    const { namespace, name } = splitKey(key);
    const source = informer.cache.get(key);
    const mirror = `mirror-${name}`;
    if (source === undefined) {
      try {
        await client.delete(SECRETS, namespace, mirror);
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
      return;
    }
    const data = (source["data"] ?? {}) as Record<string, string>;
    try {
      const current = await client.get(SECRETS, namespace, mirror);
      await client.update(SECRETS, namespace, { ...current, stringData: data });
    } catch (error) {
      if (!isNotFound(error)) throw error;
      await client.create(SECRETS, namespace, { metadata: { name: mirror }, stringData: data });
    }
  });
  cleanups.push(async () => {
    queue.shutDown();
    await workers;
    await informer.stop();
  });
  return informer;
}

async function mirrors(client: KubeClient): Promise<string[]> {
  return (await client.list(SECRETS, "default")).items
    .map((s) => s.metadata?.name ?? "")
    .filter((n) => n.startsWith("mirror-"))
    .sort();
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe("a controller on the runtime", () => {
  it("keeps a correct cache through a server restart with the missed history compacted (410 relist)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "controller-runtime-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, "state.db");
    let plane: ControlPlane | undefined = await createControlPlane({
      port: 0,
      processMetrics: false,
      storage: await createSqliteStorage({ path }),
    });
    cleanups.push(() => plane?.close());
    const port = plane.port;
    const client = new KubeClient(plane.url);
    cleanups.push(() => client.close());
    for (const name of ["a", "b"])
      await client.create(CONFIGMAPS, "default", { metadata: { name, labels: { mirror: "yes" } }, data: { v: name } });
    const informer = startMirrorController(client);
    await waitFor("mirrors of a and b", async () => ((await mirrors(client)).join() === "mirror-a,mirror-b" ? true : undefined));
    const listsBefore = informer.listCount;

    // The server goes away; meanwhile "a" is deleted and "c" created behind its back, and the history is compacted.
    await plane.close();
    plane = undefined;
    const storage = await createSqliteStorage({ path });
    const configMaps = createResourceStore(configMapsResource, storage);
    await configMaps.delete("default", "a");
    await configMaps.create("default", {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c", labels: { mirror: "yes" } },
      data: { v: "c" },
    });
    await storage.compact(await storage.currentRevision());
    await storage.close();

    plane = await createControlPlane({ port, processMetrics: false, storage: await createSqliteStorage({ path }) });
    await waitFor("mirrors to follow the configmaps", async () =>
      (await mirrors(client)).join() === "mirror-b,mirror-c" ? true : undefined,
    );
    expect(informer.listCount).toBeGreaterThan(listsBefore);
    expect(informer.cache.keys().sort()).toEqual(["default/b", "default/c"]);

    // And it keeps following live changes after the relist.
    await client.patch(CONFIGMAPS, "default", "b", { data: { v: "b2" } });
    await waitFor("the mirror of b to be updated", async () => {
      const secret = await client.get(SECRETS, "default", "mirror-b");
      return (secret["data"] as Record<string, string>)["v"] === Buffer.from("b2").toString("base64") ? true : undefined;
    });
  }, 30_000);
});
