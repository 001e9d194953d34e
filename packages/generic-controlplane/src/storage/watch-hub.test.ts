import { describe, expect, it } from "vitest";
import { eventually } from "./conformance.js";
import type { StorageEvent } from "./types.js";
import { WatchHub } from "./watch-hub.js";

function put(key: string, revision: number): StorageEvent {
  return { type: "put", kv: { key, value: "v", createRevision: revision, modRevision: revision }, prev: undefined };
}

describe("WatchHub", () => {
  it("delivers a burst as one batch per watcher, only to watchers whose directory holds the key", async () => {
    const hub = new WatchHub();
    const batches: Record<string, StorageEvent[][]> = { all: [], ns: [], other: [] };
    hub.add("/r/", { afterRevision: 0, onEvents: (e) => batches.all!.push(e) }, [], 0);
    hub.add("/r/cm/ns/", { afterRevision: 0, onEvents: (e) => batches.ns!.push(e) }, [], 0);
    hub.add("/r/cm/ns2/", { afterRevision: 0, onEvents: (e) => batches.other!.push(e) }, [], 0);
    hub.publish([put("/r/cm/ns/a", 1)]);
    hub.publish([put("/r/cm/ns/b", 2), put("/r/cm/nsx/c", 3)]);
    await eventually(() => batches.all!.length > 0);
    expect(batches.all!.map((b) => b.map((e) => e.kv.modRevision))).toEqual([[1, 2, 3]]);
    expect(batches.ns!.map((b) => b.map((e) => e.kv.modRevision))).toEqual([[1, 2]]);
    expect(batches.other).toEqual([]);
  });

  it("ends only the watch whose consumer throws, reporting the error to it", async () => {
    const hub = new WatchHub();
    const errors: Error[] = [];
    const healthy: StorageEvent[] = [];
    let calls = 0;
    hub.add(
      "/r/",
      {
        afterRevision: 0,
        onEvents: () => {
          calls++;
          throw new Error("consumer bug");
        },
        onError: (e) => errors.push(e),
      },
      [],
      0,
    );
    hub.add("/r/", { afterRevision: 0, onEvents: (e) => healthy.push(...e) }, [], 0);
    hub.publish([put("/r/a", 1)]);
    await eventually(() => healthy.length === 1);
    hub.publish([put("/r/b", 2)]);
    await eventually(() => healthy.length === 2);
    expect(calls).toBe(1);
    expect(errors.map((e) => e.message)).toEqual(["consumer bug"]);
    expect(hub.size).toBe(1);
  });

  it("never delivers an event twice when the replay already covered it", async () => {
    const hub = new WatchHub();
    const seen: number[] = [];
    hub.add(
      "/r/",
      { afterRevision: 0, onEvents: (e) => seen.push(...e.map((x) => x.kv.modRevision)) },
      [put("/r/a", 1), put("/r/b", 2)],
      2,
    );
    hub.publish([put("/r/b", 2), put("/r/c", 3)]);
    await eventually(() => seen.length >= 3);
    expect(seen).toEqual([1, 2, 3]);
  });

  it("drops what a stopped watcher had queued, and delivers one published during a flush in the next flush", async () => {
    const hub = new WatchHub();
    const stoppedSeen: number[] = [];
    const batches: number[][] = [];
    const stopped = hub.add("/r/", { afterRevision: 0, onEvents: (e) => stoppedSeen.push(...e.map((x) => x.kv.modRevision)) }, [], 0);
    hub.add(
      "/r/",
      {
        afterRevision: 0,
        onEvents: (e) => {
          batches.push(e.map((x) => x.kv.modRevision));
          // A change committed while this batch is delivered (e.g. by the consumer itself).
          if (batches.length === 1) hub.publish([put("/r/c", 3)]);
        },
      },
      [],
      0,
    );
    hub.publish([put("/r/a", 1), put("/r/b", 2)]);
    stopped.stop();
    await eventually(() => batches.length === 2);
    expect(batches).toEqual([[1, 2], [3]]);
    expect(stoppedSeen).toEqual([]);
    expect(hub.size).toBe(1);
  });
});
