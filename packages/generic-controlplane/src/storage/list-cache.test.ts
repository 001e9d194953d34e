import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "./conformance.js";
import { withListCache } from "./list-cache.js";
import { createMemoryStorage } from "./memory.js";
import type { KeyValue, Storage, StorageEvent, WatchOptions } from "./types.js";

/** A memory backend counting its list calls, whose watches can lag and be broken. */
function backend(lagMs = 0) {
  const inner = createMemoryStorage({ compactInterval: 0 });
  const counts = { lists: 0, currentRevisions: 0, gets: 0 };
  const failures: Array<(error: Error) => void> = [];
  const delivered = { events: 0 };
  const list = inner.list.bind(inner);
  const watch = inner.watch.bind(inner);
  const currentRevision = inner.currentRevision.bind(inner);
  const get = inner.get.bind(inner);
  inner.get = (key, options) => {
    counts.gets++;
    return get(key, options);
  };
  inner.list = (prefix, options) => {
    counts.lists++;
    return list(prefix, options);
  };
  inner.currentRevision = () => {
    counts.currentRevisions++;
    return currentRevision();
  };
  inner.watch = (prefix, options: WatchOptions) => {
    if (options.onError !== undefined) failures.push(options.onError);
    const deliver = (events: Parameters<WatchOptions["onEvents"]>[0]) => {
      delivered.events += events.length;
      options.onEvents(events);
    };
    const onEvents =
      lagMs === 0 ? deliver : (events: Parameters<WatchOptions["onEvents"]>[0]) => void setTimeout(() => deliver(events), lagMs);
    return watch(prefix, { ...options, onEvents });
  };
  return { inner, counts, delivered, breakWatches: (error: Error) => failures.splice(0).forEach((fail) => fail(error)) };
}

const opened: Storage[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

function cached(inner: Storage, options: Parameters<typeof withListCache>[1] = {}): Storage {
  const storage = withListCache(inner, options);
  opened.push(storage);
  return storage;
}

describe("withListCache", () => {
  it("lists every directory in key order while thousands of keys come and go in any order", async () => {
    const { inner } = backend();
    const s = cached(inner);
    const live = new Map<string, KeyValue>();
    live.set("/registry/configmaps/a/seed", await s.create("/registry/configmaps/a/seed", "x"));
    expect((await s.list("/registry/configmaps/a")).items).toHaveLength(1);
    // A shuffled order of 3,000 writes across two directories: creates, deletes, and re-creates of deleted keys.
    const names = Array.from({ length: 1500 }, (_, i) => `k-${(i * 7919) % 1500}`);
    for (const [i, name] of names.entries()) {
      const key = `/registry/configmaps/${i % 2 === 0 ? "a" : "b"}/${name}`;
      live.set(key, await s.create(key, String(i)));
      if (i % 3 === 0) {
        const gone = `/registry/configmaps/${i % 2 === 0 ? "a" : "b"}/${names[Math.floor(i / 2)]}`;
        if (live.has(gone)) {
          await s.delete(gone);
          live.delete(gone);
        }
      }
      if (i % 250 === 0) {
        for (const directory of ["a", "b"]) {
          const listed = await s.list(`/registry/configmaps/${directory}`);
          const expected = [...live.values()]
            .filter((kv) => kv.key.startsWith(`/registry/configmaps/${directory}/`))
            .sort((x, y) => (x.key < y.key ? -1 : 1));
          expect(listed.items).toEqual(expected);
          expect(listed.items).toEqual((await inner.list(`/registry/configmaps/${directory}`)).items);
        }
      }
    }
    for (const key of [...live.keys()].slice(0, 200)) {
      await s.delete(key);
      live.delete(key);
      live.set(key, await s.create(key, "again"));
    }
    for (const directory of ["a", "b"]) {
      expect((await s.list(`/registry/configmaps/${directory}`)).items).toEqual(
        (await inner.list(`/registry/configmaps/${directory}`)).items,
      );
      const pages: KeyValue[] = [];
      let page = await s.list(`/registry/configmaps/${directory}`, { limit: 100 });
      pages.push(...page.items);
      while (page.remaining > 0) {
        page = await s.list(`/registry/configmaps/${directory}`, {
          limit: 100,
          revision: page.revision,
          startAfter: page.items.at(-1)!.key,
        });
        pages.push(...page.items);
      }
      expect(pages).toEqual((await inner.list(`/registry/configmaps/${directory}`)).items);
    }
  });

  it("once loaded, answers consistent lists from memory: one revision read and no backend list each", async () => {
    const { inner, counts } = backend();
    const s = cached(inner);
    for (let i = 0; i < 5; i++) await s.create(`/registry/configmaps/ns/seed-${i}`, "x");
    expect((await s.list("/registry/configmaps/ns")).items).toHaveLength(5);
    const listsAfterLoad = counts.lists;
    const revisionsBefore = counts.currentRevisions;
    for (let i = 0; i < 40; i++) {
      const written = await s.create(`/registry/configmaps/ns/c-${String(i).padStart(2, "0")}`, String(i));
      const list = await s.list("/registry/configmaps/ns", { limit: 500 });
      expect(list.items.find((kv) => kv.key === written.key)).toEqual(written);
      expect(list.revision).toBe(written.modRevision);
    }
    expect(counts.lists).toBe(listsAfterLoad);
    expect(counts.currentRevisions - revisionsBefore).toBe(40);
  });

  it("with minRevision reads no revision and waits only for that one", async () => {
    const { inner, counts } = backend(30);
    const s = cached(inner);
    await s.list("/registry/a");
    const written = await s.create("/registry/a/x", "1");
    const before = counts.currentRevisions;
    const seen = await s.list("/registry/a", { minRevision: written.modRevision });
    expect(seen.items).toEqual([written]);
    expect(counts.currentRevisions).toBe(before);
  });

  it("waits for a lagging watch to deliver the backend's revision, and reads the backend when it lags past the timeout", async () => {
    const lagging = backend(40);
    const s = cached(lagging.inner, { consistentReadTimeoutMs: 2000 });
    await s.list("/registry/a");
    const listsAfterLoad = lagging.counts.lists;
    const written = await s.create("/registry/a/1", "1");
    expect((await s.list("/registry/a")).items).toEqual([written]);
    expect(lagging.counts.lists).toBe(listsAfterLoad);

    const slow = backend(500);
    const impatient = cached(slow.inner, { consistentReadTimeoutMs: 20 });
    await impatient.list("/registry/a");
    const listsBefore = slow.counts.lists;
    const late = await impatient.create("/registry/a/2", "2");
    expect((await impatient.list("/registry/a")).items).toEqual([late]);
    expect(slow.counts.lists).toBe(listsBefore + 1);
  });

  it("after a consistent list timed out, reads the backend for a while even once the cache caught up", async () => {
    const slow = backend(100);
    const s = cached(slow.inner, { consistentReadTimeoutMs: 10, bypassAfterTimeoutMs: 60_000 });
    await s.list("/registry/a");
    await s.create("/registry/a/1", "1");
    const before = slow.counts.lists;
    expect((await s.list("/registry/a")).items).toHaveLength(1);
    await eventually(() => slow.delivered.events === 1);
    expect((await s.list("/registry/a")).items).toHaveLength(1);
    expect(slow.counts.lists).toBe(before + 2);
    // Lists that take an older state still come from the cache.
    expect((await s.list("/registry/a", { minRevision: 0 })).items).toHaveLength(1);
    expect(slow.counts.lists).toBe(before + 2);
  });

  it("serves the pages of a list from the snapshot its first page was cut from while the directory changes", async () => {
    const { inner, counts } = backend();
    const s = cached(inner);
    const keys = Array.from({ length: 30 }, (_, i) => `/registry/p/${String(i).padStart(2, "0")}`);
    for (const key of keys) await s.create(key, "v1");
    let page = await s.list("/registry/p", { limit: 10 });
    const revision = page.revision;
    const seen = [...page.items];
    const listsAfterFirst = counts.lists;
    while (page.remaining > 0) {
      const next = keys[seen.length + 2]!;
      const current = await s.get(next);
      await s.update(next, "v2", current!.modRevision);
      await s.delete(keys[seen.length + 1]!);
      await s.create(`${page.items.at(-1)!.key}a`, "new");
      page = await s.list("/registry/p", { limit: 10, revision, startAfter: page.items.at(-1)!.key });
      expect(page.revision).toBe(revision);
      seen.push(...page.items);
    }
    expect(seen.map((kv) => kv.key)).toEqual(keys);
    expect(seen.every((kv) => kv.value === "v1")).toBe(true);
    expect(counts.lists).toBe(listsAfterFirst);
  });

  it("after its watch breaks, reads the backend and loads again on the next list", async () => {
    const { inner, counts, breakWatches } = backend();
    const s = cached(inner);
    await s.create("/registry/a/1", "1");
    await s.list("/registry/a");
    breakWatches(new Error("watch broke"));
    const written = await s.create("/registry/a/2", "2");
    const before = counts.lists;
    expect((await s.list("/registry/a")).items.map((kv) => kv.key)).toEqual(["/registry/a/1", "/registry/a/2"]);
    // Loaded again: the next list is answered from memory.
    expect(counts.lists).toBeGreaterThan(before);
    const loaded = counts.lists;
    expect((await s.list("/registry/a", { minRevision: written.modRevision })).items).toHaveLength(2);
    expect(counts.lists).toBe(loaded);
  });

  it("without consistent reads, reads the backend for the latest state and serves minRevision and continuations from memory", async () => {
    const { inner, counts } = backend();
    const s = cached(inner, { consistentReads: false });
    for (let i = 0; i < 6; i++) await s.create(`/registry/a/${i}`, String(i));
    const first = await s.list("/registry/a", { minRevision: 0, limit: 3 });
    const loaded = counts.lists;
    expect(
      (await s.list("/registry/a", { limit: 3, revision: first.revision, startAfter: first.items.at(-1)!.key })).items.map(
        (kv) => kv.value,
      ),
    ).toEqual(["3", "4", "5"]);
    expect(counts.lists).toBe(loaded);
    expect((await s.list("/registry/a")).items).toHaveLength(6);
    expect(counts.lists).toBe(loaded + 1);
  });

  it("without consistent reads, serves the latest state from memory when the backend proves the directory unchanged, and reads the backend when it cannot", async () => {
    const { inner, counts } = backend();
    const checks: Array<[string, number, number]> = [];
    let unchanged = true;
    const s = cached(inner, {
      consistentReads: false,
      unchangedSince: async (directory, revision, count) => {
        checks.push([directory, revision, count]);
        return unchanged ? inner.currentRevision() : undefined;
      },
    });
    for (let i = 0; i < 3; i++) await s.create(`/registry/configmaps/ns/c-${i}`, String(i));
    const last = await s.create("/registry/secrets/ns/s", "x");
    const first = await s.list("/registry/configmaps/ns");
    expect(first.items.map((kv) => kv.value)).toEqual(["0", "1", "2"]);
    expect(first.revision).toBe(last.modRevision);
    expect(checks.at(-1)).toEqual(["/registry/configmaps/ns/", last.modRevision, 3]);
    const lists = counts.lists;
    expect((await s.list("/registry/configmaps/ns", { limit: 2 })).items).toHaveLength(2);
    expect(counts.lists).toBe(lists);
    unchanged = false;
    await s.create("/registry/configmaps/ns/c-3", "3");
    expect((await s.list("/registry/configmaps/ns")).items.map((kv) => kv.value)).toEqual(["0", "1", "2", "3"]);
    expect(counts.lists).toBe(lists + 1);
  });

  it("serves gets of the latest state from memory, concurrent gets sharing one revision read", async () => {
    const { inner, counts } = backend();
    const s = cached(inner, { root: "/registry/", servesGets: true });
    const written = await Promise.all(Array.from({ length: 5 }, (_, i) => s.create(`/registry/a/${i}`, String(i))));
    expect(await s.get("/registry/a/0")).toEqual(written[0]);
    const [gets, revisions] = [counts.gets, counts.currentRevisions];
    const read = await Promise.all(Array.from({ length: 100 }, (_, i) => s.get(`/registry/a/${i % 6}`)));
    expect(read).toEqual(Array.from({ length: 100 }, (_, i) => written[i % 6]));
    expect(counts.gets).toBe(gets);
    // The first get's read, and at most one after it for all the gets that arrived while it was in flight.
    expect(counts.currentRevisions - revisions).toBeLessThanOrEqual(2);
    // A get at a revision, or outside the root, is the backend's.
    expect(await s.get("/registry/a/1", { revision: written[1]!.modRevision })).toEqual(written[1]);
    await inner.create("/other/x", "x");
    expect((await s.get("/other/x"))?.value).toBe("x");
    expect(counts.gets).toBe(gets + 2);
  });

  it("answers a get with a state no older than any write acknowledged before it began, while the watch lags", async () => {
    const { inner } = backend(40);
    // A revision read can be answered by the backend before a write and reach the cache after it.
    const currentRevision = inner.currentRevision.bind(inner);
    let answered: (() => void) | undefined;
    inner.currentRevision = async () => {
      const revision = await currentRevision();
      if (answered === undefined) await new Promise<void>((resolve) => (answered = resolve));
      return revision;
    };
    const s = cached(inner, { servesGets: true, getWaitMs: 2000 });
    const first = await s.create("/registry/a/k", "1");
    answered = () => {};
    expect(await s.get("/registry/a/k")).toEqual(first);
    answered = undefined;
    const before = s.get("/registry/a/k");
    await eventually(() => answered !== undefined);
    // Acknowledged while the read above is in flight, and long before the watch delivers it.
    const second = await s.update("/registry/a/k", "2", first.modRevision);
    const after = s.get("/registry/a/k");
    answered!();
    expect(await before).toEqual(first);
    expect(await after).toEqual(second);
  });

  it("reads gets from the backend while its revision moved without events under the root, until the root is proved unchanged", async () => {
    const { inner, counts } = backend();
    const proofs: Array<[string, number, number]> = [];
    let proved = 0;
    const s = cached(inner, {
      root: "/registry/",
      servesGets: true,
      getWaitMs: 20,
      unchangedSince: async (directory, revision, count) => {
        proofs.push([directory, revision, count]);
        const current = await inner.currentRevision();
        proved++;
        return current;
      },
    });
    const kept = await s.create("/registry/a/k", "1");
    expect(await s.get("/registry/a/k")).toEqual(kept);
    const gets = counts.gets;
    const elsewhere = await s.create("/other/x", "x");
    expect(await s.get("/registry/a/k")).toEqual(kept);
    expect(counts.gets).toBe(gets + 1);
    expect(proofs).toEqual([["/registry/", kept.modRevision, 1]]);
    await eventually(() => proved === 1);
    await new Promise((resolve) => setTimeout(resolve, 0));
    // Proved through the write elsewhere: the cache answers again, at once.
    const started = Date.now();
    expect(await s.get("/registry/a/k")).toEqual(kept);
    expect(Date.now() - started).toBeLessThan(20);
    expect(counts.gets).toBe(gets + 1);
    expect(elsewhere.modRevision).toBe(kept.modRevision + 1);
  });

  it("answers a get from the backend while its watch is behind, and proves the root only once no event comes", async () => {
    const { inner } = backend();
    // The watch's events wait here until released.
    const held: StorageEvent[] = [];
    let feed: WatchOptions["onEvents"] = () => {};
    const watch = inner.watch.bind(inner);
    inner.watch = (prefix, options) => {
      feed = options.onEvents;
      return watch(prefix, { ...options, onEvents: (events) => void held.push(...events) });
    };
    const release = (events: number) => feed(held.splice(0, events));
    const proofs: number[] = [];
    const s = cached(inner, {
      root: "/registry/",
      servesGets: true,
      getWaitMs: 50,
      unchangedSince: (_directory, revision) => {
        proofs.push(revision);
        return Promise.resolve(undefined);
      },
    });
    const first = await s.create("/registry/a/1", "1");
    expect(await s.get("/registry/a/1")).toEqual(first);
    const second = await s.create("/registry/a/2", "2");
    await s.create("/registry/a/3", "3");
    // One event arrives while the get waits: the cache is behind, not stuck, and needs no proof.
    setTimeout(() => release(1), 10);
    expect(await s.get("/registry/a/2")).toEqual(second);
    expect(proofs).toEqual([]);
    // Nothing arrives during the next get's wait.
    expect((await s.get("/registry/a/3"))?.value).toBe("3");
    expect(proofs).toEqual([second.modRevision]);
  });

  it("lists outside its root read the backend", async () => {
    const { inner, counts } = backend();
    const s = cached(inner, { root: "/registry/" });
    await s.create("/other/a", "1");
    const before = counts.lists;
    expect((await s.list("/other")).items).toHaveLength(1);
    expect(counts.lists).toBe(before + 1);
  });
});
