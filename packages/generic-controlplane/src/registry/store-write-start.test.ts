import { afterEach, describe, expect, it } from "vitest";
import type { KubeObject } from "../api/types.js";
import { createMemoryStorage } from "../storage/memory.js";
import type { Storage } from "../storage/types.js";
import { createGenericStore } from "./store.js";
import { backends, closeAll, rejection, widget, widgets } from "./test-fixtures.js";

// A write starts from the value it read, and again from the value that won after a lost
// compare-and-swap: never from what this store wrote or decoded before (a cache of decoded objects
// must keep these passing).

afterEach(closeAll);

const clock = () => new Date("2026-01-02T03:04:05.678Z");

function labelsOf(object: KubeObject): Record<string, string> | undefined {
  return object.metadata?.labels;
}

function withLabel(key: string, value: string) {
  return (current: KubeObject): KubeObject => ({
    ...current,
    metadata: { ...current.metadata, labels: { ...labelsOf(current), [key]: value } },
  });
}

for (const backend of backends) {
  describe(`a write's start (${backend.name})`, () => {
    it("is what another store wrote on the same storage, never what this one decoded before", async () => {
      const { storage, store } = await backend.open();
      const other = createGenericStore(widgets, storage, { clock });
      await store.create("default", widget("a", { color: "red" }));
      await store.guaranteedUpdate("default", "a", withLabel("mine", "1"));
      const theirs = await other.guaranteedUpdate("default", "a", withLabel("theirs", "1"));
      const after = await store.guaranteedUpdate("default", "a", withLabel("again", "1"));
      expect(labelsOf(after)).toEqual({ mine: "1", theirs: "1", again: "1" });
      // A precondition on the version this store wrote last is a conflict: the other store's write came after.
      const stale = { ...theirs, metadata: { ...theirs.metadata, resourceVersion: String(Number(theirs.metadata?.resourceVersion) - 1) } };
      expect((await rejection(store.update("default", "a", stale))).code).toBe("Conflict");
    });

    it("is the current value after a compaction", async () => {
      const { storage, store } = await backend.open();
      await store.create("default", widget("a", { color: "red" }));
      await store.guaranteedUpdate("default", "a", withLabel("one", "1"));
      const second = await store.guaranteedUpdate("default", "a", withLabel("two", "2"));
      await storage.compact(Number(second.metadata?.resourceVersion));
      const third = await store.guaranteedUpdate("default", "a", withLabel("three", "3"));
      expect(labelsOf(third)).toEqual({ one: "1", two: "2", three: "3" });
      expect(await store.get("default", "a")).toEqual(third);
    });
  });
}

describe("a write's start", () => {
  it("after a lost compare-and-swap is the value that won", async () => {
    const storage = createMemoryStorage({ compactInterval: 0 });
    const store = createGenericStore(widgets, storage, { clock });
    const other = createGenericStore(widgets, storage, { clock });
    await store.create("default", widget("a", { color: "red" }));
    await store.guaranteedUpdate("default", "a", withLabel("first", "1"));
    let raced = false;
    const racing: Storage = Object.assign(Object.create(storage) as Storage, {
      update: async (key: string, value: string, revision: number) => {
        if (!raced) {
          raced = true;
          // Another writer gets in between this store's read and its compare-and-swap.
          await other.guaranteedUpdate("default", "a", withLabel("winner", "1"));
        }
        return storage.update(key, value, revision);
      },
    });
    const racingStore = createGenericStore(widgets, racing, { clock });
    await racingStore.get("default", "a");
    const attempts: Array<Record<string, string> | undefined> = [];
    const written = await racingStore.guaranteedUpdate("default", "a", (current) => {
      attempts.push(labelsOf(current));
      return withLabel("loser", "1")(current);
    });
    expect(attempts).toEqual([{ first: "1" }, { first: "1", winner: "1" }]);
    expect(labelsOf(written)).toEqual({ first: "1", winner: "1", loser: "1" });
  });
});
