import { afterEach, describe, expect, it, vi } from "vitest";
import type { WatchEvent } from "../api/types.js";
import { LIST_PAGE_SIZE } from "./list.js";
import { backends, closeAll, widget, type Backend } from "./test-fixtures.js";
import type { ResourceStore, WatchRequest } from "./types.js";

afterEach(closeAll);

/** More objects than two pages of initial events or of replayed history. */
const COUNT = LIST_PAGE_SIZE * 2 + 123;

const until = (check: () => void) => vi.waitFor(check, { timeout: 5000, interval: 5 });

async function fill(store: ResourceStore, count: number): Promise<void> {
  const creates: Array<Promise<unknown>> = [];
  for (let i = 0; i < count; i++) creates.push(store.create("default", widget(`w-${String(i).padStart(5, "0")}`)));
  await Promise.all(creates);
}

/** A watch whose consumer is ready only when the test says so. */
async function heldWatch(store: ResourceStore, request: WatchRequest) {
  const events: WatchEvent[] = [];
  const closed: Array<Error | undefined> = [];
  let release: (() => void) | undefined;
  let holds = 0;
  const watch = await store.watch(
    "default",
    request,
    (event) => events.push(event),
    (error) => closed.push(error),
    {
      whenReady: () => {
        holds++;
        return new Promise<void>((resolve) => (release = resolve));
      },
    },
  );
  return { events, closed, watch, holds: () => holds, release: () => release?.() };
}

/** Releases the consumer page after page until `done`, checking that nothing arrives while it is held. */
async function drainHeld(held: Awaited<ReturnType<typeof heldWatch>>, done: () => boolean): Promise<void> {
  for (let round = 0; round < 20 && !done(); round++) {
    const seen = held.events.length;
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(held.events.length).toBe(seen);
    const before = held.holds();
    held.release();
    await until(() => expect(held.holds() > before || done()).toBe(true));
  }
}

describe.each(backends)("paged watch on $name", (backend: Backend) => {
  it("sends the initial state a page at a time, waiting for the consumer, then live events", async () => {
    const { store } = await backend.open();
    await fill(store, COUNT);
    const held = await heldWatch(store, {});
    await until(() => expect(held.holds()).toBe(1));
    expect(held.events.length).toBe(LIST_PAGE_SIZE);
    const live = store.create("default", widget("zz-live"));
    await drainHeld(held, () => held.events.length >= COUNT + 1);
    await live;
    await until(() => expect(held.events.length).toBe(COUNT + 1));
    expect(held.events.slice(0, COUNT).every((e) => e.type === "ADDED")).toBe(true);
    expect(held.events.map((e) => e.object.metadata?.name)).toEqual([
      ...Array.from({ length: COUNT }, (_, i) => `w-${String(i).padStart(5, "0")}`),
      "zz-live",
    ]);
    // The live create came after the initial state's revision.
    expect(Number(held.events.at(-1)!.object.metadata?.resourceVersion)).toBeGreaterThan(
      Number(held.events[COUNT - 1]!.object.metadata?.resourceVersion),
    );
    held.watch.stop();
  });

  it("replays history from an old resourceVersion a page at a time, waiting for the consumer", async () => {
    const { store, storage } = await backend.open();
    const from = await storage.currentRevision();
    await fill(store, COUNT);
    const held = await heldWatch(store, { resourceVersion: String(from) });
    await until(() => expect(held.holds()).toBe(1));
    expect(held.events.length).toBeLessThan(COUNT);
    await drainHeld(held, () => held.events.length >= COUNT);
    await until(() => expect(held.events.length).toBe(COUNT));
    const revisions = held.events.map((e) => Number(e.object.metadata?.resourceVersion));
    expect(revisions).toEqual([...revisions].sort((a, b) => a - b));
    expect(new Set(revisions).size).toBe(COUNT);
    expect(held.events.every((e) => e.type === "ADDED")).toBe(true);
    held.watch.stop();
  });

  it("ends with 410 Expired when compaction overtakes the initial state it is sending", async () => {
    const { store, storage } = await backend.open();
    await fill(store, COUNT);
    const held = await heldWatch(store, {});
    await until(() => expect(held.holds()).toBe(1));
    await store.create("default", widget("zz-later"));
    await storage.compact(await storage.currentRevision());
    held.release();
    await until(() => expect(held.closed).toHaveLength(1));
    expect((held.closed[0] as { code?: string }).code).toBe("Expired");
  });
});
