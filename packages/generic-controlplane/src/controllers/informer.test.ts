import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { KubeObject } from "../api/types.js";
import { createControlPlane, type ControlPlane } from "../control-plane.js";
import { createMemoryStorage } from "../storage/memory.js";
import { createSqliteStorage } from "../storage/sqlite.js";
import { KubeClient } from "./client.js";
import { dropManagedFields, Informer } from "./informer.js";
import { CONFIGMAPS, eventually } from "./test-support.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function names(informer: Informer, namespace = "default"): string[] {
  return informer.cache
    .byIndex("namespace", namespace)
    .map((o) => o.metadata?.name ?? "")
    .sort();
}

/** An informer whose handlers record what they were told, started against `client`. */
function recordingInformer(client: KubeClient, options: ConstructorParameters<typeof Informer>[2] = {}) {
  const informer = new Informer(client, CONFIGMAPS, { namespace: "default", initialBackoffMs: 20, maxBackoffMs: 200, ...options });
  const log: string[] = [];
  informer.addEventHandler({
    add: (o) => log.push(`add ${o.metadata?.name}`),
    update: (_old, o) => log.push(`update ${o.metadata?.name}`),
    delete: (o, unknown) => log.push(`delete ${o.metadata?.name}${unknown ? " (final state unknown)" : ""}`),
  });
  informer.start();
  cleanups.push(() => informer.stop());
  return { informer, log };
}

async function plane(options: Parameters<typeof createControlPlane>[0] = {}): Promise<ControlPlane> {
  const p = await createControlPlane({ port: 0, processMetrics: false, ...options });
  cleanups.push(() => p.close());
  return p;
}

describe("Informer", () => {
  it("lists into its cache, then follows adds, updates and deletes; indexers stay in step", async () => {
    const p = await plane();
    const client = new KubeClient(p.url);
    cleanups.push(() => client.close());
    await client.create(CONFIGMAPS, "default", { metadata: { name: "before", labels: { team: "a" } } });
    const { informer, log } = recordingInformer(client, { indexers: { team: (o) => [o.metadata?.labels?.team ?? ""] } });
    await informer.waitForSync();
    expect(names(informer)).toEqual(["before"]);
    await client.create(CONFIGMAPS, "default", { metadata: { name: "after", labels: { team: "b" } } });
    await client.patch(CONFIGMAPS, "default", "before", { metadata: { labels: { team: "b" } } });
    await client.delete(CONFIGMAPS, "default", "after");
    await eventually("the delete to arrive", () => (log.includes("delete after") ? true : undefined));
    expect(log).toEqual(["add before", "add after", "update before", "delete after"]);
    expect(informer.cache.byIndex("team", "b").map((o) => o.metadata?.name)).toEqual(["before"]);
    expect(informer.cache.byIndex("team", "a")).toEqual([]);
  });

  it("relists after its resourceVersion is compacted away (410) and keeps a correct cache", async () => {
    const storage = createMemoryStorage();
    const p = await plane({ storage });
    const client = new KubeClient(p.url);
    cleanups.push(() => client.close());
    // Watches end after 1-2 s, so the reflector resumes from its resourceVersion often.
    const { informer, log } = recordingInformer(client, { minWatchTimeoutSeconds: 1 });
    await informer.waitForSync();
    await client.create(CONFIGMAPS, "default", { metadata: { name: "one" } });
    await eventually("add of one", () => (log.includes("add one") ? true : undefined));
    // Stop watching (as a disconnected reflector would), change things, compact the history away.
    await informer.stop();
    await client.create(CONFIGMAPS, "default", { metadata: { name: "two" } });
    await client.delete(CONFIGMAPS, "default", "one");
    await storage.compact(await storage.currentRevision());
    const lists = informer.listCount;
    informer.start();
    await eventually("a relist after 410", () => (informer.listCount > lists ? true : undefined));
    expect(names(informer)).toEqual(["two"]);
    expect(log).toContain("delete one (final state unknown)");
    expect(log.filter((l) => l === "add one")).toHaveLength(1);
    await client.create(CONFIGMAPS, "default", { metadata: { name: "three" } });
    await eventually("add of three after the relist", () => (log.includes("add three") ? true : undefined));
    expect(names(informer)).toEqual(["three", "two"]);
  });

  it("an open watch overtaken by compaction relists too", async () => {
    const storage = createMemoryStorage();
    const p = await plane({ storage });
    const client = new KubeClient(p.url);
    cleanups.push(() => client.close());
    const { informer, log } = recordingInformer(client, { minWatchTimeoutSeconds: 1 });
    await informer.waitForSync();
    await client.create(CONFIGMAPS, "default", { metadata: { name: "a" } });
    await eventually("add of a", () => (log.includes("add a") ? true : undefined));
    // Writes the informer does not select move the revision on; then the history goes.
    await client.create(CONFIGMAPS, "kube-system", { metadata: { name: "unselected" } });
    await storage.compact(await storage.currentRevision());
    const lists = informer.listCount;
    await eventually("a relist after the watch's history was compacted", () => (informer.listCount > lists ? true : undefined));
    await client.create(CONFIGMAPS, "default", { metadata: { name: "b" } });
    await eventually("add of b", () => (log.includes("add b") ? true : undefined));
    expect(names(informer)).toEqual(["a", "b"]);
  });

  it("survives a server restart on the same store, and a restart onto an empty store", async () => {
    const dir = mkdtempSync(join(tmpdir(), "informer-restart-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, "state.db");
    let p = await createControlPlane({ port: 0, processMetrics: false, storage: await createSqliteStorage({ path }) });
    const port = p.port;
    const client = new KubeClient(p.url);
    cleanups.push(() => client.close());
    await client.create(CONFIGMAPS, "default", { metadata: { name: "kept" } });
    const { informer, log } = recordingInformer(client);
    await informer.waitForSync();
    await p.close();

    p = await createControlPlane({ port, processMetrics: false, storage: await createSqliteStorage({ path }) });
    await client.create(CONFIGMAPS, "default", { metadata: { name: "while-away" } }).catch(async () => {
      // The first request may meet a keep-alive connection of the old server; retry once on a new one.
      await client.create(CONFIGMAPS, "default", { metadata: { name: "while-away" } });
    });
    await eventually("the informer to see the object created after the restart", () => (log.includes("add while-away") ? true : undefined));
    expect(names(informer)).toEqual(["kept", "while-away"]);
    await p.close();

    // A server that lost everything (fresh memory store, lower revisions): the cache follows it.
    const q = await plane({ port, storage: createMemoryStorage() });
    await client.create(CONFIGMAPS, "default", { metadata: { name: "fresh" } }).catch(async () => {
      await client.create(CONFIGMAPS, "default", { metadata: { name: "fresh" } });
    });
    await eventually("the cache to match the new server", () => (names(informer).join(",") === "fresh" ? true : undefined));
    expect(log).toContain("delete kept (final state unknown)");
    expect(q.url).toBe(p.url);
  }, 30_000);

  it("a throwing handler neither stops the other handlers nor the cache", async () => {
    const p = await plane();
    const client = new KubeClient(p.url);
    cleanups.push(() => client.close());
    const logs: string[] = [];
    const informer = new Informer(client, CONFIGMAPS, { namespace: "default", logger: (r) => logs.push(r.msg) });
    const seen: string[] = [];
    informer.addEventHandler({
      add: () => {
        throw new Error("boom");
      },
    });
    informer.addEventHandler({ add: (o) => seen.push(o.metadata?.name ?? "") });
    informer.start();
    cleanups.push(() => informer.stop());
    await informer.waitForSync();
    await client.create(CONFIGMAPS, "default", { metadata: { name: "one" } });
    await client.create(CONFIGMAPS, "default", { metadata: { name: "two" } });
    await eventually("both adds", () => (seen.length === 2 ? true : undefined));
    expect(names(informer)).toEqual(["one", "two"]);
    expect(logs.filter((m) => m === "event handler failed")).toHaveLength(2);
  });

  it("metadataOnly caches PartialObjectMetadata typed as the resource, from lists and watches", async () => {
    const p = await plane();
    const client = new KubeClient(p.url);
    cleanups.push(() => client.close());
    await client.create(CONFIGMAPS, "default", { metadata: { name: "listed", labels: { a: "b" } }, data: { secret: "x" } });
    const informer = new Informer(client, { ...CONFIGMAPS, kind: "ConfigMap" }, { namespace: "default", metadataOnly: true });
    informer.start();
    cleanups.push(() => informer.stop());
    await informer.waitForSync();
    await client.create(CONFIGMAPS, "default", { metadata: { name: "watched" }, data: { secret: "y" } });
    await eventually("the watched configmap", () => informer.cache.get("default/watched"));
    for (const key of ["default/listed", "default/watched"]) {
      const cached = informer.cache.get(key)!;
      expect(cached.apiVersion).toBe("v1");
      expect(cached.kind).toBe("ConfigMap");
      expect(cached["data"]).toBeUndefined();
      expect(cached.metadata?.uid).toBeDefined();
    }
    expect(informer.cache.get("default/listed")!.metadata?.labels).toEqual({ a: "b" });
  });

  it("transform: dropManagedFields caches objects without managed fields, from lists and watches, the rest as served", async () => {
    const p = await plane();
    // A named client, so its writes are owned by a manager.
    const client = new KubeClient({ server: p.url, userAgent: "informer-test" });
    cleanups.push(() => client.close());
    await client.create(CONFIGMAPS, "default", { metadata: { name: "listed" }, data: { a: "1" } });
    const seen: KubeObject[] = [];
    const informer = new Informer(client, CONFIGMAPS, { namespace: "default", transform: dropManagedFields });
    informer.addEventHandler({ add: (o) => seen.push(o), update: (_old, o) => seen.push(o) });
    informer.start();
    cleanups.push(() => informer.stop());
    await informer.waitForSync();
    await client.create(CONFIGMAPS, "default", { metadata: { name: "watched" }, data: { b: "2" } });
    await client.patch(CONFIGMAPS, "default", "listed", { data: { a: "3" } });
    await eventually(
      "the patch",
      () => (informer.cache.get("default/listed")?.["data"] as { a?: string } | undefined)?.a === "3" || undefined,
    );
    const served = await client.get(CONFIGMAPS, "default", "listed");
    expect(served.metadata?.managedFields?.[0]?.manager).toBe("informer-test");
    const cached = informer.cache.get("default/listed")!;
    const { managedFields: _dropped, ...metadata } = served.metadata!;
    expect(cached).toEqual({ ...served, metadata });
    expect(informer.cache.get("default/watched")!["data"]).toEqual({ b: "2" });
    expect(seen).toHaveLength(3);
    expect(seen.every((o) => o.metadata?.managedFields === undefined && o.kind === "ConfigMap")).toBe(true);
  });

  it("late handlers see the cache as adds", async () => {
    const p = await plane();
    const client = new KubeClient(p.url);
    cleanups.push(() => client.close());
    await client.create(CONFIGMAPS, "default", { metadata: { name: "x" } });
    const { informer } = recordingInformer(client);
    await informer.waitForSync();
    const seen: KubeObject[] = [];
    informer.addEventHandler({ add: (o) => seen.push(o) });
    expect(seen.map((o) => o.metadata?.name)).toEqual(["x"]);
  });

  it("asks for bookmarks and resumes its watch from the last bookmark's resourceVersion", async () => {
    // A scripted API server: one list at rv 10, a watch that sends one event and a BOOKMARK at rv 500, then ends.
    const requests: string[] = [];
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const url = new URL(req.url ?? "/", "http://x");
      requests.push(url.search);
      res.setHeader("Content-Type", "application/json");
      if (url.searchParams.get("watch") !== "true") {
        res.end(JSON.stringify({ kind: "ConfigMapList", apiVersion: "v1", metadata: { resourceVersion: "10" }, items: [] }));
        return;
      }
      if (url.searchParams.get("resourceVersion") === "10") {
        res.write(
          JSON.stringify({
            type: "ADDED",
            object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", namespace: "default", resourceVersion: "11" } },
          }) + "\n",
        );
        res.end(
          JSON.stringify({ type: "BOOKMARK", object: { apiVersion: "v1", kind: "ConfigMap", metadata: { resourceVersion: "500" } } }) +
            "\n",
        );
        return;
      }
      // Later watches stay open until the client goes.
      res.write("");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    cleanups.push(() => server.closeAllConnections());
    const client = new KubeClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    cleanups.push(() => client.close());
    const { informer } = recordingInformer(client);
    await eventually("a watch resumed after the bookmark", () =>
      requests.some((q) => q.includes("resourceVersion=500")) ? true : undefined,
    );
    const watches = requests.filter((q) => q.includes("watch=true"));
    expect(watches[0]).toContain("allowWatchBookmarks=true");
    expect(watches[0]).toContain("resourceVersion=10");
    expect(watches[1]).toContain("resourceVersion=500");
    expect(informer.listCount).toBe(1);
    expect(informer.lastSyncResourceVersion).toBe("500");
    expect(names(informer)).toEqual(["x"]);
  });
});
