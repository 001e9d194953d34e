import { afterEach, describe, expect, it, vi } from "vitest";
import type { WatchEvent } from "../api/types.js";
import { backends, closeAll, rejection, widget, type Backend } from "./test-fixtures.js";
import type { ResourceStore, WatchRequest } from "./types.js";

interface Recorder {
  events: WatchEvent[];
  closed: (Error | undefined)[];
  summary(): string[];
  stop(): void;
}

async function record(store: ResourceStore, namespace: string | undefined, request: WatchRequest): Promise<Recorder> {
  const events: WatchEvent[] = [];
  const closed: (Error | undefined)[] = [];
  const watch = await store.watch(
    namespace,
    request,
    (e) => events.push(e),
    (error) => closed.push(error),
  );
  return {
    events,
    closed,
    summary: () =>
      events.map((e) => {
        const meta = e.object.metadata;
        return e.type === "BOOKMARK" ? `BOOKMARK ${meta?.resourceVersion}${meta?.annotations ? " end" : ""}` : `${e.type} ${meta?.name}`;
      }),
    stop: () => watch.stop(),
  };
}

const until = (check: () => void) => vi.waitFor(check, { timeout: 2000, interval: 5 });

afterEach(closeAll);

describe.each(backends)("watch on $name", (backend: Backend) => {
  it("without a resourceVersion sends ADDED for the current state, then changes", async () => {
    const { store } = await backend.open();
    await store.create("default", widget("a"));
    await store.create("other", widget("x"));
    const w = await record(store, "default", {});
    const b = await store.create("default", widget("b"));
    await store.update("default", "b", { ...b, spec: { color: "red" } });
    await store.delete("default", "a");
    await until(() => expect(w.summary()).toEqual(["ADDED a", "ADDED b", "MODIFIED b", "DELETED a"]));
    const deleted = w.events[3]?.object;
    expect(Number(deleted?.metadata?.resourceVersion)).toBeGreaterThan(Number(b.metadata?.resourceVersion));
    w.stop();
  });

  it("filters objects stored with null labels (written by older versions) without ending the watch", async () => {
    const { store, storage } = await backend.open();
    const w = await record(store, undefined, { labelSelector: "app=web" });
    const legacy = { apiVersion: "v1", kind: "Widget", metadata: { name: "n", namespace: "default", uid: "u", labels: null } };
    await storage.create("/registry/widgets/default/n", JSON.stringify(legacy));
    await store.create("default", widget("a", { labels: { app: "web" } }));
    await until(() => expect(w.summary()).toEqual(["ADDED a"]));
    expect(w.closed).toEqual([]);
    const replay = await record(store, undefined, { labelSelector: "!app", resourceVersion: "0" });
    await until(() => expect(replay.summary()).toEqual(["ADDED n"]));
    w.stop();
    replay.stop();
  });

  it("replays from a resourceVersion (the python e2e sequence)", async () => {
    const { store } = await backend.open();
    await store.create("default", widget("a", { labels: { e2e: "true" } }));
    const rv = (await store.list("default")).metadata.resourceVersion ?? "";
    const b = await store.create("default", widget("b", { labels: { e2e: "true" } }));
    await store.update("default", "b", { ...b, data: { x: "1" } });
    await store.deleteCollection("default", { labelSelector: "e2e=true" });
    const w = await record(store, "default", { resourceVersion: rv });
    await until(() => expect(w.summary()).toEqual(["ADDED b", "MODIFIED b", "DELETED a", "DELETED b"]));
    w.stop();
  });

  it("rejects a compacted resourceVersion with 410 too old resource version", async () => {
    const { store, storage } = await backend.open();
    await store.create("default", widget("a"));
    await store.create("default", widget("b"));
    await store.create("default", widget("c"));
    await storage.compact(3);
    const error = await rejection(store.watch("default", { resourceVersion: "1" }, () => {}));
    expect(error.code).toBe("Expired");
    expect(error.httpStatus).toBe(410);
    expect(error.message).toMatch(/^too old resource version: 1 \(\d+\)$/);
  });

  it("rejects a resourceVersion the store has not reached with 504 ResourceVersionTooLarge", async () => {
    const { store } = await backend.open();
    const created = await store.create("default", widget("a"));
    const ahead = String(Number(created.metadata?.resourceVersion) + 100);
    const error = await rejection(store.watch("default", { resourceVersion: ahead }, () => {}));
    expect(error.code).toBe("Timeout");
    expect(error.httpStatus).toBe(504);
    expect(error.message).toBe(`Timeout: Too large resource version: ${ahead}, current: ${created.metadata?.resourceVersion}`);
    expect(error.details?.causes?.[0]?.reason).toBe("ResourceVersionTooLarge");
  });

  it("turns selector transitions into ADDED and DELETED", async () => {
    const { store } = await backend.open();
    const a = await store.create("default", widget("a", { labels: { watch: "A" } }));
    const w = await record(store, "default", { labelSelector: "watch=A", resourceVersion: a.metadata?.resourceVersion ?? "" });
    const moved = await store.update("default", "a", { ...a, metadata: { ...a.metadata, labels: { watch: "B" }, resourceVersion: "" } });
    await store.update("default", "a", { ...moved, data: { x: "1" }, metadata: { ...moved.metadata, resourceVersion: "" } });
    const back = await store.update("default", "a", {
      ...moved,
      metadata: { ...moved.metadata, labels: { watch: "A" }, resourceVersion: "" },
    });
    await store.update("default", "a", { ...back, data: { x: "2" }, metadata: { ...back.metadata, resourceVersion: "" } });
    await until(() => expect(w.summary()).toEqual(["DELETED a", "ADDED a", "MODIFIED a"]));
    // The DELETED carries the last matching content at the revision of the change.
    expect(w.events[0]?.object.metadata?.labels).toEqual({ watch: "A" });
    expect(w.events[0]?.object.metadata?.resourceVersion).toBe(moved.metadata?.resourceVersion);
    w.stop();
  });

  it("filters by field selector, e.g. a single object by name", async () => {
    const { store } = await backend.open();
    const w = await record(store, "default", { fieldSelector: "metadata.name=b", resourceVersion: "0" });
    await store.create("default", widget("a"));
    await store.create("default", widget("b"));
    await store.delete("default", "b");
    await until(() => expect(w.summary()).toEqual(["ADDED b", "DELETED b"]));
    w.stop();
    await expect(store.watch("default", { fieldSelector: "nope=1" }, () => {})).rejects.toMatchObject({
      code: "BadRequest",
      message: "field label not supported: nope",
    });
  });

  it("watches from the same resourceVersion see the same sequence", async () => {
    const { store } = await backend.open();
    const first = await store.create("default", widget("a"));
    const rv = first.metadata?.resourceVersion ?? "";
    const w1 = await record(store, undefined, { resourceVersion: rv });
    for (const name of ["b", "c", "d"]) await store.create("default", widget(name));
    const w2 = await record(store, undefined, { resourceVersion: rv });
    await until(() => expect(w1.summary()).toEqual(["ADDED b", "ADDED c", "ADDED d"]));
    await until(() => expect(w2.summary()).toEqual(w1.summary()));
    expect(w2.events.map((e) => e.object.metadata?.resourceVersion)).toEqual(w1.events.map((e) => e.object.metadata?.resourceVersion));
    w1.stop();
    w2.stop();
  });

  it("sends periodic BOOKMARKs with the latest revision when allowed", async () => {
    const { store } = await backend.open();
    const w = await record(store, "default", { resourceVersion: "0", allowWatchBookmarks: true, bookmarkIntervalMs: 20 });
    const a = await store.create("default", widget("a"));
    await until(() => expect(w.summary()).toContain(`BOOKMARK ${a.metadata?.resourceVersion}`));
    expect(w.summary()[0]).toBe("ADDED a");
    w.stop();
    const count = w.events.length;
    // A witness with the same interval: once it has seen two more BOOKMARKs, the stopped watch
    // would have seen at least one had it not stopped.
    const witness = await record(store, "default", {
      resourceVersion: a.metadata?.resourceVersion ?? "",
      allowWatchBookmarks: true,
      bookmarkIntervalMs: 20,
    });
    await until(() => expect(witness.events.filter((e) => e.type === "BOOKMARK").length).toBeGreaterThanOrEqual(2));
    witness.stop();
    expect(w.events.length).toBe(count);
  });

  it("sends a BOOKMARK 2 s before the watch's deadline, besides the periodic ones", async () => {
    const { store } = await backend.open();
    const a = await store.create("default", widget("a"));
    const rv = a.metadata?.resourceVersion ?? "";
    const w = await record(store, "default", {
      resourceVersion: rv,
      allowWatchBookmarks: true,
      bookmarkIntervalMs: 60_000,
      deadline: Date.now() + 2_100,
    });
    const without = await record(store, "default", { resourceVersion: rv, allowWatchBookmarks: false, deadline: Date.now() + 2_100 });
    await until(() => expect(w.summary()).toEqual([`BOOKMARK ${rv}`]));
    expect(without.events).toEqual([]);
    w.stop();
    without.stop();
  });

  it("advances BOOKMARKs past changes a selector filters out", async () => {
    const { store } = await backend.open();
    const w = await record(store, "default", {
      labelSelector: "app=web",
      resourceVersion: "0",
      allowWatchBookmarks: true,
      bookmarkIntervalMs: 20,
    });
    const other = await store.create("default", widget("db", { labels: { app: "db" } }));
    await until(() => expect(w.summary()).toContain(`BOOKMARK ${other.metadata?.resourceVersion}`));
    expect(w.summary().filter((s) => !s.startsWith("BOOKMARK"))).toEqual([]);
    w.stop();
  });

  it("implements WatchList: ADDED for the state, then the initial-events-end BOOKMARK", async () => {
    const { store } = await backend.open();
    await store.create("default", widget("a"));
    const b = await store.create("default", widget("b"));
    const w = await record(store, "default", { sendInitialEvents: true, resourceVersionMatch: "NotOlderThan", allowWatchBookmarks: true });
    await store.create("default", widget("c"));
    await until(() => expect(w.summary()).toEqual(["ADDED a", "ADDED b", `BOOKMARK ${b.metadata?.resourceVersion} end`, "ADDED c"]));
    expect(w.events[2]?.object).toEqual({
      kind: "Widget",
      apiVersion: "v1",
      metadata: { resourceVersion: b.metadata?.resourceVersion, annotations: { "k8s.io/initial-events-end": "true" } },
    });
    w.stop();
  });

  it("with sendInitialEvents=false starts at the current state without ADDEDs", async () => {
    const { store } = await backend.open();
    await store.create("default", widget("a"));
    const w = await record(store, "default", { sendInitialEvents: false, resourceVersionMatch: "NotOlderThan", allowWatchBookmarks: true });
    await store.create("default", widget("b"));
    await until(() => expect(w.summary()).toEqual(["ADDED b"]));
    w.stop();
  });

  it.each<[WatchRequest, string]>([
    [
      { sendInitialEvents: true, allowWatchBookmarks: true },
      "resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
    ],
    [
      { sendInitialEvents: true, resourceVersionMatch: "NotOlderThan" },
      "allowWatchBookmarks: Forbidden: allowWatchBookmarks must be set to true when sendInitialEvents is true",
    ],
    [
      { resourceVersionMatch: "NotOlderThan" },
      "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
    ],
  ])("rejects the invalid WatchList combination %j with 422", async (request, message) => {
    const { store } = await backend.open();
    const error = await rejection(store.watch("default", request, () => {}));
    expect(error.httpStatus).toBe(422);
    expect(error.message).toBe(`ListOptions.meta.k8s.io "" is invalid: ${message}`);
  });

  it("ends with onClose(error) when compaction overtakes the storage watch", async () => {
    const { store, storage } = await backend.open();
    const w = await record(store, "default", { resourceVersion: "0" });
    await store.create("default", widget("a"));
    await until(() => expect(w.summary()).toEqual(["ADDED a"]));
    await storage.close();
    await until(() => expect(w.closed).toHaveLength(1));
    expect(w.closed[0]).toBeInstanceOf(Error);
  });

  it("ends only the watch whose consumer throws", async () => {
    const { store } = await backend.open();
    const closed: (Error | undefined)[] = [];
    await store.watch(
      "default",
      { resourceVersion: "0" },
      () => {
        throw new Error("socket gone");
      },
      (error) => closed.push(error),
    );
    const healthy = await record(store, "default", { resourceVersion: "0" });
    await store.create("default", widget("a"));
    await store.create("default", widget("b"));
    await until(() => expect(healthy.summary()).toEqual(["ADDED a", "ADDED b"]));
    expect(closed.map((e) => e?.message)).toEqual(["socket gone"]);
    healthy.stop();
  });

  it("delivers nothing after stop()", async () => {
    const { store } = await backend.open();
    const w = await record(store, "default", { resourceVersion: "0" });
    const witness = await record(store, "default", { resourceVersion: "0" });
    w.stop();
    await store.create("default", widget("a"));
    // Both watches are fed in order from one stream: once the witness has the event, the stopped
    // watch would have it too.
    await until(() => expect(witness.summary()).toEqual(["ADDED a"]));
    witness.stop();
    expect(w.events).toEqual([]);
    expect(w.closed).toEqual([]);
  });
});
