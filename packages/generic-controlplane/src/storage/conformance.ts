/**
 * The behaviour every Storage backend must show, as a vitest suite. Backend test files call
 * `runStorageConformance("name", factory)`; third-party backends get it from `/testing`, which
 * is loaded only by tests.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { isControlPlaneError, type ControlPlaneErrorCode } from "../api/errors/control-plane-error.js";
import type { KeyValue, Storage, StorageEvent, StorageWatch } from "./types.js";

export type StorageFactory = () => Storage | Promise<Storage>;

export async function expectCode(operation: Promise<unknown>, code: ControlPlaneErrorCode): Promise<void> {
  const outcome = await operation.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  if (outcome.ok) throw new Error(`expected ${code}, got success ${JSON.stringify(outcome.value)}`);
  expect(isControlPlaneError(outcome.error), String(outcome.error)).toBe(true);
  expect((outcome.error as { code: string }).code).toBe(code);
}

/** Resolves once `condition` holds, polling across macrotasks (watch delivery is asynchronous). */
export async function eventually(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

interface Recorder {
  events: StorageEvent[];
  batches: number;
  largestBatch: number;
  errors: Error[];
  watch: StorageWatch;
}

async function record(storage: Storage, prefix: string, afterRevision: number): Promise<Recorder> {
  const recorder: Omit<Recorder, "watch"> = { events: [], batches: 0, largestBatch: 0, errors: [] };
  const watch = await storage.watch(prefix, {
    afterRevision,
    onEvents: (events) => {
      recorder.batches++;
      recorder.largestBatch = Math.max(recorder.largestBatch, events.length);
      recorder.events.push(...events);
    },
    onError: (error) => recorder.errors.push(error),
  });
  return Object.assign(recorder, { watch });
}

function inRevisionOrder(kvs: readonly KeyValue[]): KeyValue[] {
  return [...kvs].sort((a, b) => a.modRevision - b.modRevision);
}

function summary(events: StorageEvent[]): string[] {
  return events.map((e) => `${e.type} ${e.kv.key}=${e.kv.value}@${e.kv.modRevision}`);
}

/** The obvious implementation of the contract: an event log folded on demand. */
class ReferenceModel {
  events: StorageEvent[] = [];
  compacted = 0;

  /**
   * `base` is the backend's revision before the first command: 0 for the embedded backends, 1 for
   * a fresh etcd (whose empty store is at revision 1). Nothing in the contract fixes it.
   */
  constructor(
    readonly base: number,
    public revision = base,
  ) {}

  stateAt(revision: number): Map<string, KeyValue> {
    const state = new Map<string, KeyValue>();
    for (const event of this.events) {
      if (event.kv.modRevision > revision) break;
      if (event.type === "put") state.set(event.kv.key, event.kv);
      else state.delete(event.kv.key);
    }
    return state;
  }

  live(key: string): KeyValue | undefined {
    return this.stateAt(this.revision).get(key);
  }

  record(event: StorageEvent): KeyValue {
    this.revision = event.kv.modRevision;
    this.events.push(event);
    return event.kv;
  }
}

type Command =
  | { op: "create"; key: string; value: string }
  | { op: "update"; key: string; value: string; stale: boolean }
  | { op: "delete"; key: string; precondition: "none" | "current" | "stale" }
  | { op: "compact"; back: number };

const MODEL_KEYS = ["/m/a", "/m/a/x", "/m/ab", "/m/b/c", "/m/b/d", "/m/a/y/z"];

const commandArbitrary: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ op: fc.constant("create" as const), key: fc.constantFrom(...MODEL_KEYS), value: fc.string({ maxLength: 4 }) }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant("update" as const),
      key: fc.constantFrom(...MODEL_KEYS),
      value: fc.string({ maxLength: 4 }),
      stale: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("delete" as const),
      key: fc.constantFrom(...MODEL_KEYS),
      precondition: fc.constantFrom("none" as const, "current" as const, "stale" as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("compact" as const), back: fc.nat({ max: 6 }) }) },
);

/** Runs one command on both, returning what each did as comparable text. */
async function step(storage: Storage, model: ReferenceModel, command: Command): Promise<[unknown, unknown]> {
  const outcome = (operation: Promise<unknown>) =>
    operation.then(
      (value) => ({ ok: value }),
      (error: unknown) => ({ error: (error as { code?: string }).code ?? String(error) }),
    );
  const next = model.revision + 1;
  const live = command.op === "compact" ? undefined : model.live(command.key);
  switch (command.op) {
    case "create": {
      const actual = await outcome(storage.create(command.key, command.value));
      if (live !== undefined) return [actual, { error: "AlreadyExists" }];
      const kv = { key: command.key, value: command.value, createRevision: next, modRevision: next };
      return [actual, { ok: model.record({ type: "put", kv, prev: undefined }) }];
    }
    case "update": {
      const expected = live === undefined ? 1 : command.stale ? live.modRevision - 1 : live.modRevision;
      const actual = await outcome(storage.update(command.key, command.value, expected));
      if (live === undefined) return [actual, { error: "NotFound" }];
      if (command.stale) return [actual, { error: "Conflict" }];
      const kv = { key: command.key, value: command.value, createRevision: live.createRevision, modRevision: next };
      return [actual, { ok: model.record({ type: "put", kv, prev: live }) }];
    }
    case "delete": {
      const expected =
        live === undefined || command.precondition === "none"
          ? undefined
          : command.precondition === "stale"
            ? live.modRevision - 1
            : live.modRevision;
      const actual = await outcome(storage.delete(command.key, expected));
      if (live === undefined) return [actual, { error: "NotFound" }];
      if (command.precondition === "stale") return [actual, { error: "Conflict" }];
      const kv = { key: command.key, value: live.value, createRevision: live.createRevision, modRevision: next };
      return [actual, { ok: model.record({ type: "delete", kv, prev: live }) }];
    }
    case "compact": {
      const target = Math.max(model.base, model.revision - command.back);
      const actual = await outcome(storage.compact(target));
      // Compacting at the starting revision discards nothing.
      if (target > model.base) model.compacted = Math.max(model.compacted, target);
      return [actual, { ok: undefined }];
    }
  }
}

async function expectMatchesModel(storage: Storage, model: ReferenceModel): Promise<void> {
  expect(await storage.currentRevision()).toBe(model.revision);
  expect(await storage.compactedRevision()).toBe(model.compacted);
  for (let revision = Math.max(1, model.compacted); revision <= model.revision; revision++) {
    const state = model.stateAt(revision);
    const expected = (prefix: string) =>
      [...state.values()].filter((kv) => kv.key.startsWith(prefix)).sort((a, b) => (a.key < b.key ? -1 : 1));
    expect((await storage.list("/m", { revision })).items).toEqual(expected("/m/"));
    expect((await storage.list("/m/a", { revision })).items).toEqual(expected("/m/a/"));
    const paged: KeyValue[] = [];
    let page = await storage.list("/m", { revision, limit: 2 });
    for (;;) {
      paged.push(...page.items);
      expect(page.remaining).toBe(expected("/m/").length - paged.length);
      if (page.remaining === 0) break;
      page = await storage.list("/m", { revision, limit: 2, startAfter: page.items.at(-1)!.key });
    }
    expect(paged).toEqual(expected("/m/"));
    for (const key of MODEL_KEYS) expect(await storage.get(key, { revision })).toEqual(state.get(key));
  }
  if (model.compacted > 1) await expectCode(storage.get("/m/a", { revision: model.compacted - 1 }), "Expired");
  expect(await storage.count("/m/b")).toBe([...model.stateAt(model.revision).keys()].filter((key) => key.startsWith("/m/b/")).length);
  const replayed: StorageEvent[] = [];
  const watch = await storage.watch("/m", { afterRevision: model.compacted, onEvents: (events) => replayed.push(...events) });
  const expectedEvents = model.events.filter((event) => event.kv.modRevision > model.compacted);
  await eventually(() => replayed.length >= expectedEvents.length);
  watch.stop();
  expect(replayed).toEqual(expectedEvents);
}

export function runStorageConformance(name: string, factory: StorageFactory): void {
  describe(`Storage conformance: ${name}`, () => {
    const opened: Storage[] = [];
    async function open(): Promise<Storage> {
      const storage = await factory();
      opened.push(storage);
      return storage;
    }
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((s) => s.close()));
    });

    describe("create and get", () => {
      it("assigns one new revision per write and reports it on the key", async () => {
        const s = await open();
        const start = await s.currentRevision();
        const a = await s.create("/registry/configmaps/ns/a", "A");
        const b = await s.create("/registry/configmaps/ns/b", "B");
        expect(a).toEqual({ key: "/registry/configmaps/ns/a", value: "A", createRevision: start + 1, modRevision: start + 1 });
        expect(b.modRevision).toBe(start + 2);
        expect(await s.currentRevision()).toBe(start + 2);
        expect(await s.get("/registry/configmaps/ns/a")).toEqual(a);
        expect(await s.get("/registry/configmaps/ns/missing")).toBeUndefined();
      });

      it("fails with AlreadyExists for a live key and does not spend a revision", async () => {
        const s = await open();
        await s.create("/k/x", "1");
        const revision = await s.currentRevision();
        await expectCode(s.create("/k/x", "2"), "AlreadyExists");
        expect(await s.currentRevision()).toBe(revision);
        expect((await s.get("/k/x"))?.value).toBe("1");
      });

      it("allows creating a deleted key again with a new createRevision", async () => {
        const s = await open();
        const first = await s.create("/k/x", "1");
        await s.delete("/k/x");
        const second = await s.create("/k/x", "2");
        expect(second.createRevision).toBeGreaterThan(first.createRevision);
        expect(second.createRevision).toBe(second.modRevision);
        expect(await s.get("/k/x")).toEqual(second);
      });

      it("stores values byte for byte, including unicode and large values", async () => {
        const s = await open();
        const value = JSON.stringify({ data: { emoji: "✓ ünïcødé 🚀", nul: "a\u0000b", big: "x".repeat(1 << 20) } });
        await s.create("/k/big", value);
        expect((await s.get("/k/big"))?.value).toBe(value);
      });
    });

    describe("update", () => {
      it("swaps when the expected revision matches and keeps createRevision", async () => {
        const s = await open();
        const created = await s.create("/k/x", "1");
        const updated = await s.update("/k/x", "2", created.modRevision);
        expect(updated).toEqual({ key: "/k/x", value: "2", createRevision: created.createRevision, modRevision: created.modRevision + 1 });
        expect(await s.get("/k/x")).toEqual(updated);
      });

      it("fails with Conflict on a stale revision and leaves the value alone", async () => {
        const s = await open();
        const created = await s.create("/k/x", "1");
        await s.update("/k/x", "2", created.modRevision);
        await expectCode(s.update("/k/x", "3", created.modRevision), "Conflict");
        expect((await s.get("/k/x"))?.value).toBe("2");
      });

      it("fails with NotFound for a missing or deleted key", async () => {
        const s = await open();
        await expectCode(s.update("/k/none", "1", 1), "NotFound");
        const created = await s.create("/k/x", "1");
        await s.delete("/k/x");
        await expectCode(s.update("/k/x", "2", created.modRevision), "NotFound");
      });
    });

    describe("delete", () => {
      it("deletes unconditionally and returns the last value at the delete revision", async () => {
        const s = await open();
        const created = await s.create("/k/x", "v");
        const deleted = await s.delete("/k/x");
        expect(deleted).toEqual({ key: "/k/x", value: "v", createRevision: created.createRevision, modRevision: created.modRevision + 1 });
        expect(await s.currentRevision()).toBe(deleted.modRevision);
        expect(await s.get("/k/x")).toBeUndefined();
      });

      it("honours a precondition", async () => {
        const s = await open();
        const created = await s.create("/k/x", "1");
        const updated = await s.update("/k/x", "2", created.modRevision);
        await expectCode(s.delete("/k/x", created.modRevision), "Conflict");
        expect((await s.get("/k/x"))?.value).toBe("2");
        const deleted = await s.delete("/k/x", updated.modRevision);
        expect(deleted.value).toBe("2");
      });

      it("fails with NotFound for a missing key or a second delete", async () => {
        const s = await open();
        await expectCode(s.delete("/k/none"), "NotFound");
        await s.create("/k/x", "1");
        await s.delete("/k/x");
        await expectCode(s.delete("/k/x"), "NotFound");
      });
    });

    describe("reads at a past revision", () => {
      it("returns each key's state as of that revision", async () => {
        const s = await open();
        await s.create("/before/x", "0"); // so that v1.modRevision - 1 is a real revision, not "current"
        const v1 = await s.create("/k/x", "1");
        const other = await s.create("/k/y", "y");
        const v2 = await s.update("/k/x", "2", v1.modRevision);
        const gone = await s.delete("/k/x");
        const v3 = await s.create("/k/x", "3");
        expect(await s.get("/k/x", { revision: v1.modRevision - 1 })).toBeUndefined();
        expect(await s.get("/k/x", { revision: v1.modRevision })).toEqual(v1);
        expect(await s.get("/k/x", { revision: other.modRevision })).toEqual(v1);
        expect(await s.get("/k/x", { revision: v2.modRevision })).toEqual(v2);
        expect(await s.get("/k/x", { revision: gone.modRevision })).toBeUndefined();
        expect(await s.get("/k/x", { revision: v3.modRevision })).toEqual(v3);
        expect(await s.get("/k/x", { revision: 0 })).toEqual(v3);
        const listed = await s.list("/k", { revision: v2.modRevision });
        expect(listed.revision).toBe(v2.modRevision);
        expect(listed.items).toEqual([v2, other]);
        expect((await s.list("/k", { revision: gone.modRevision })).items).toEqual([other]);
      });

      it("rejects a revision it has not reached with Timeout (ResourceVersionTooLarge)", async () => {
        const s = await open();
        await s.create("/k/x", "1");
        const revision = await s.currentRevision();
        await expectCode(s.get("/k/x", { revision: revision + 1 }), "Timeout");
        await expectCode(s.list("/k", { revision: revision + 5 }), "Timeout");
      });
    });

    describe("list", () => {
      it("lists keys under a directory in key order, isolated from sibling prefixes", async () => {
        const s = await open();
        for (const key of ["/a/bc/1", "/a/b/2", "/a/b", "/a/b/1", "/a/b/sub/3", "/a/a/0", "/a/b0"]) await s.create(key, key);
        const forB = await s.list("/a/b");
        expect(forB.items.map((kv) => kv.key)).toEqual(["/a/b/1", "/a/b/2", "/a/b/sub/3"]);
        expect(forB.remaining).toBe(0);
        expect(forB.revision).toBe(await s.currentRevision());
        expect((await s.list("/a/b/")).items.map((kv) => kv.key)).toEqual(["/a/b/1", "/a/b/2", "/a/b/sub/3"]);
        expect((await s.list("/a/bc")).items.map((kv) => kv.key)).toEqual(["/a/bc/1"]);
        expect((await s.list("/a")).items).toHaveLength(7);
        expect((await s.list("/nothing")).items).toEqual([]);
        expect(await s.count("/a/b")).toBe(3);
        expect(await s.count("/a")).toBe(7);
      });

      it("omits deleted keys and counts only live ones", async () => {
        const s = await open();
        await s.create("/p/1", "1");
        await s.create("/p/2", "2");
        await s.create("/p/3", "3");
        await s.delete("/p/2");
        expect((await s.list("/p")).items.map((kv) => kv.value)).toEqual(["1", "3"]);
        expect(await s.count("/p")).toBe(2);
      });

      it("pages with limit and startAfter at a fixed revision while writes continue", async () => {
        const s = await open();
        const keys = Array.from({ length: 10 }, (_, i) => `/p/item-${String(i).padStart(2, "0")}`);
        for (const key of keys) await s.create(key, `v1 ${key}`);
        const first = await s.list("/p", { limit: 4 });
        expect(first.items.map((kv) => kv.key)).toEqual(keys.slice(0, 4));
        expect(first.remaining).toBe(6);
        // Writes between pages must not show up in the pages of this list.
        await s.create("/p/item-05a", "new");
        await s.create("/p/item-99", "new");
        await s.delete(keys[6]!);
        const current = await s.get(keys[7]!);
        await s.update(keys[7]!, "v2", current!.modRevision);
        const second = await s.list("/p", { limit: 4, startAfter: first.items.at(-1)!.key, revision: first.revision });
        expect(second.revision).toBe(first.revision);
        expect(second.items.map((kv) => kv.key)).toEqual(keys.slice(4, 8));
        expect(second.items.map((kv) => kv.value)).toEqual(keys.slice(4, 8).map((k) => `v1 ${k}`));
        expect(second.remaining).toBe(2);
        const third = await s.list("/p", { limit: 4, startAfter: second.items.at(-1)!.key, revision: first.revision });
        expect(third.items.map((kv) => kv.key)).toEqual(keys.slice(8));
        expect(third.remaining).toBe(0);
        const now = await s.list("/p");
        expect(now.items.map((kv) => kv.key)).toEqual(
          [...keys.slice(0, 5), "/p/item-05a", keys[5]!, ...keys.slice(7), "/p/item-99"].sort(),
        );
      });

      it("treats limit 0 as unlimited and a startAfter past the prefix as the end", async () => {
        const s = await open();
        await s.create("/p/a", "a");
        await s.create("/p/b", "b");
        await s.create("/q/a", "q");
        expect((await s.list("/p", { limit: 0 })).items).toHaveLength(2);
        expect((await s.list("/p", { startAfter: "/p/b" })).items).toEqual([]);
        expect((await s.list("/p", { startAfter: "/a" })).items).toHaveLength(2);
        expect((await s.list("/p", { startAfter: "/p/a" })).items.map((kv) => kv.key)).toEqual(["/p/b"]);
        const exact = await s.list("/p", { limit: 2 });
        expect(exact.items).toHaveLength(2);
        expect(exact.remaining).toBe(0);
      });

      it("stops after the page without counting the rest when countRemaining is false", async () => {
        const s = await open();
        for (let i = 0; i < 5; i++) await s.create(`/p/${i}`, String(i));
        await s.create("/q/0", "other");
        const first = await s.list("/p", { limit: 2, countRemaining: false });
        expect(first.items.map((kv) => kv.key)).toEqual(["/p/0", "/p/1"]);
        expect(first.remaining).toBeGreaterThan(0);
        const last = await s.list("/p", { limit: 3, startAfter: "/p/1", revision: first.revision, countRemaining: false });
        expect(last.items.map((kv) => kv.key)).toEqual(["/p/2", "/p/3", "/p/4"]);
        expect(last.remaining).toBe(0);
      });

      it("keeps the first page's remaining and count() exact as keys come and go", async () => {
        const s = await open();
        const start = await s.currentRevision();
        for (let i = 0; i < 6; i++) await s.create(`/r/d/${i}`, String(i));
        expect((await s.list("/r/d", { limit: 2 })).remaining).toBe(4);
        expect(await s.count("/r")).toBe(6);
        await s.create("/r/d/6", "6");
        await s.create("/r/e/0", "sibling");
        const one = await s.get("/r/d/1");
        await s.update("/r/d/1", "again", one!.modRevision);
        await s.delete("/r/d/3");
        await s.delete("/r/d/4");
        await s.create("/r/d/3", "back");
        expect((await s.list("/r/d", { limit: 2 })).remaining).toBe(4);
        expect(await s.count("/r/d")).toBe(6);
        expect(await s.count("/r")).toBe(7);
        expect(await s.count("/r/e")).toBe(1);
        // A past revision still counts what was live then.
        expect((await s.list("/r/d", { limit: 2, revision: start + 6 })).remaining).toBe(4);
      });
    });

    describe("consistent list", () => {
      it("sees every write acknowledged before it, at once, whoever wrote and whatever the list started first", async () => {
        const s = await open();
        // The first list may load a cache; later ones must still see each write at once.
        expect((await s.list("/c/l")).items).toEqual([]);
        for (let i = 0; i < 30; i++) {
          const key = `/c/l/${String(i).padStart(2, "0")}`;
          const created = await s.create(key, `v${i}`);
          const afterCreate = await s.list("/c/l");
          expect(afterCreate.revision).toBeGreaterThanOrEqual(created.modRevision);
          expect(afterCreate.items.at(-1)).toEqual(created);
          const updated = await s.update(key, `w${i}`, created.modRevision);
          expect((await s.list("/c/l", { limit: 100 })).items.find((kv) => kv.key === updated.key)?.value).toBe(`w${i}`);
          if (i % 3 === 0) {
            await s.delete(key);
            expect((await s.list("/c/l")).items.some((kv) => kv.key === updated.key)).toBe(false);
          }
          // A write under another directory moves the revision a list of this one reports.
          const elsewhere = await s.create(`/c/other/${i}`, "x");
          expect((await s.list("/c/l")).revision).toBeGreaterThanOrEqual(elsewhere.modRevision);
        }
        expect((await s.list("/c/l")).items).toHaveLength(20);
      });

      it("with minRevision answers a state at least that new", async () => {
        const s = await open();
        const a = await s.create("/c/m/a", "a");
        const any = await s.list("/c/m", { minRevision: 0 });
        expect(any.revision).toBeGreaterThanOrEqual(0);
        const b = await s.create("/c/m/b", "b");
        const notOlder = await s.list("/c/m", { minRevision: b.modRevision });
        expect(notOlder.revision).toBeGreaterThanOrEqual(b.modRevision);
        expect(notOlder.items).toEqual([a, b]);
      });

      it("pages a list started before a burst of writes at its own revision, from its first page to its last", async () => {
        const s = await open();
        for (let i = 0; i < 25; i++) await s.create(`/c/p/${String(i).padStart(2, "0")}`, "v1");
        const pages: KeyValue[][] = [];
        let page = await s.list("/c/p", { limit: 10 });
        const revision = page.revision;
        pages.push(page.items);
        let round = 0;
        while (page.remaining > 0) {
          // Every page is followed by writes under the listed directory.
          const victim = `/c/p/${String(round * 10 + 12).padStart(2, "0")}`;
          const current = await s.get(victim);
          if (current !== undefined) await s.update(victim, "v2", current.modRevision);
          await s.create(`/c/p/${String(round).padStart(2, "0")}x`, "new");
          round++;
          page = await s.list("/c/p", { limit: 10, revision, startAfter: page.items.at(-1)!.key });
          expect(page.revision).toBe(revision);
          pages.push(page.items);
        }
        const all = pages.flat();
        expect(all.map((kv) => kv.key)).toEqual(Array.from({ length: 25 }, (_, i) => `/c/p/${String(i).padStart(2, "0")}`));
        expect(all.every((kv) => kv.value === "v1")).toBe(true);
      });
    });

    describe("watch", () => {
      it("replays history after a revision, then delivers live events in revision order", async () => {
        const s = await open();
        const start = await s.currentRevision();
        const a = await s.create("/w/a", "1");
        const a2 = await s.update("/w/a", "2", a.modRevision);
        await s.create("/other/x", "x");
        const deleted = await s.delete("/w/a");
        const recorder = await record(s, "/w", start);
        await eventually(() => recorder.events.length === 3);
        expect(recorder.events[0]).toEqual({ type: "put", kv: a, prev: undefined });
        expect(recorder.events[1]).toEqual({ type: "put", kv: a2, prev: a });
        expect(recorder.events[2]).toEqual({ type: "delete", kv: deleted, prev: a2 });
        const b = await s.create("/w/b", "b");
        await s.create("/other/y", "y");
        const b2 = await s.update("/w/b", "b2", b.modRevision);
        await eventually(() => recorder.events.length === 5);
        expect(recorder.events.slice(3)).toEqual([
          { type: "put", kv: b, prev: undefined },
          { type: "put", kv: b2, prev: b },
        ]);
        expect(recorder.errors).toEqual([]);
      });

      it("replays a history of many pages in order, exactly once, while writes continue", async () => {
        const s = await open();
        const start = await s.currentRevision();
        const writes: Array<Promise<KeyValue>> = [];
        for (let i = 0; i < 1200; i++) writes.push(s.create(`/h/${i}`, String(i)));
        for (let i = 0; i < 300; i++) writes.push(s.create(`/other/${i}`, String(i)));
        const history = await Promise.all(writes);
        const recorder = await record(s, "/h", start);
        const live: Array<Promise<KeyValue>> = [];
        for (let i = 1200; i < 1300; i++) live.push(s.create(`/h/${i}`, String(i)));
        const created = [...history, ...(await Promise.all(live))].filter((kv) => kv.key.startsWith("/h/"));
        await eventually(() => recorder.events.length >= 1300);
        // Concurrent writes may commit in any order; the watch delivers them in the order they committed.
        expect(recorder.events.map((e) => e.kv.value)).toEqual(inRevisionOrder(created).map((kv) => kv.value));
        // Paged: the 1,200 events of history never arrive as one batch.
        expect(recorder.largestBatch).toBeLessThan(1200);
        recorder.watch.stop();
      });

      it("reads the next page of history only when whenReady settles", async () => {
        const s = await open();
        const start = await s.currentRevision();
        const writes: Array<Promise<KeyValue>> = [];
        for (let i = 0; i < 1200; i++) writes.push(s.create(`/b/${i}`, String(i)));
        const created = await Promise.all(writes);
        const received: StorageEvent[] = [];
        let release: (() => void) | undefined;
        let waits = 0;
        const watch = await s.watch("/b", {
          afterRevision: start,
          onEvents: (events) => received.push(...events),
          whenReady: () => {
            waits++;
            return new Promise<void>((resolve) => (release = resolve));
          },
        });
        await eventually(() => waits === 1);
        const held = received.length;
        expect(held).toBeGreaterThan(0);
        expect(held).toBeLessThan(1200);
        // Held back: further macrotasks bring nothing until the consumer is ready again.
        for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
        expect(received.length).toBe(held);
        for (let round = 0; round < 10 && received.length < 1200; round++) {
          const before = waits;
          release?.();
          await eventually(() => waits > before || received.length === 1200);
        }
        expect(received.map((e) => e.kv.value)).toEqual(inRevisionOrder(created).map((kv) => kv.value));
        watch.stop();
      });

      it("ends a replay that compaction overtook with Expired", async () => {
        const s = await open();
        const start = await s.currentRevision();
        const writes: Array<Promise<KeyValue>> = [];
        for (let i = 0; i < 1200; i++) writes.push(s.create(`/x/${i}`, String(i)));
        await Promise.all(writes);
        const errors: Error[] = [];
        let release: (() => void) | undefined;
        const watch = await s.watch("/x", {
          afterRevision: start,
          onEvents: () => {},
          onError: (error) => errors.push(error),
          whenReady: () => new Promise<void>((resolve) => (release = resolve)),
        });
        await eventually(() => release !== undefined);
        await s.compact(await s.currentRevision());
        release!();
        await eventually(() => errors.length === 1);
        expect((errors[0] as { code?: string }).code).toBe("Expired");
        watch.stop();
      });

      it("from the current revision delivers only new events", async () => {
        const s = await open();
        await s.create("/w/old", "old");
        const recorder = await record(s, "/w", await s.currentRevision());
        const created = await s.create("/w/new", "new");
        await eventually(() => recorder.events.length >= 1);
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(summary(recorder.events)).toEqual([`put /w/new=new@${created.modRevision}`]);
      });

      it("isolates sibling prefixes", async () => {
        const s = await open();
        const recorder = await record(s, "/a/b", await s.currentRevision());
        await s.create("/a/bc/1", "no");
        await s.create("/a/b", "no");
        const yes = await s.create("/a/b/1", "yes");
        const deep = await s.create("/a/b/c/d", "deep");
        await eventually(() => recorder.events.length >= 2);
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(recorder.events.map((e) => e.kv)).toEqual([yes, deep]);
      });

      it("gives every watcher every event exactly once, contiguous and ordered, under a write burst", async () => {
        const s = await open();
        const start = await s.currentRevision();
        const early = await record(s, "/burst", start);
        const writes: Promise<unknown>[] = [];
        for (let i = 0; i < 200; i++) writes.push(s.create(`/burst/${i}`, String(i)));
        const late = await record(s, "/burst", start);
        await Promise.all(writes);
        const end = await s.currentRevision();
        for (const recorder of [early, late]) {
          await eventually(() => recorder.events.length === 200);
          const revisions = recorder.events.map((e) => e.kv.modRevision);
          expect(revisions).toEqual(Array.from({ length: 200 }, (_, i) => start + 1 + i));
        }
        expect(end).toBe(start + 200);
      });

      it("stops delivering after stop()", async () => {
        const s = await open();
        const recorder = await record(s, "/w", await s.currentRevision());
        await s.create("/w/1", "1");
        await eventually(() => recorder.events.length === 1);
        recorder.watch.stop();
        recorder.watch.stop();
        await s.create("/w/2", "2");
        await new Promise((resolve) => setTimeout(resolve, 30));
        expect(recorder.events).toHaveLength(1);
        expect(recorder.errors).toEqual([]);
      });

      it("starts after a future revision without replaying what comes before it", async () => {
        const s = await open();
        const now = await s.currentRevision();
        const recorder = await record(s, "/w", now + 2);
        await s.create("/w/1", "1");
        await s.create("/w/2", "2");
        const third = await s.create("/w/3", "3");
        await eventually(() => recorder.events.length >= 1);
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(recorder.events.map((e) => e.kv)).toEqual([third]);
      });
    });

    describe("compaction", () => {
      it("keeps the state at the compacted revision and rejects older reads and watches with Expired", async () => {
        const s = await open();
        expect(await s.compactedRevision()).toBe(0);
        const stable = await s.create("/c/stable", "kept");
        const x1 = await s.create("/c/x", "1");
        const x2 = await s.update("/c/x", "2", x1.modRevision);
        const gone = await s.create("/c/gone", "g");
        await s.delete("/c/gone");
        const target = await s.currentRevision();
        const x3 = await s.update("/c/x", "3", x2.modRevision);
        await s.compact(target);
        expect(await s.compactedRevision()).toBe(target);
        await expectCode(s.get("/c/x", { revision: target - 1 }), "Expired");
        await expectCode(s.list("/c", { revision: x1.modRevision }), "Expired");
        await expectCode(s.watch("/c", { afterRevision: gone.modRevision, onEvents: () => {} }), "Expired");
        expect(await s.get("/c/x", { revision: target })).toEqual(x2);
        expect(await s.get("/c/gone", { revision: target })).toBeUndefined();
        expect((await s.list("/c", { revision: target })).items).toEqual([stable, x2]);
        expect((await s.list("/c")).items).toEqual([stable, x3]);
        const recorder = await record(s, "/c", target);
        await eventually(() => recorder.events.length === 1);
        expect(recorder.events[0]).toEqual({ type: "put", kv: x3, prev: x2 });
        // Moving backwards or compacting again is a no-op.
        await s.compact(target - 2);
        await s.compact(target);
        expect(await s.compactedRevision()).toBe(target);
        // Writes continue with the same revision sequence.
        expect((await s.create("/c/after", "a")).modRevision).toBe(x3.modRevision + 1);
      });

      it("never loses the latest value of a live key, whatever the revision", async () => {
        const s = await open();
        const kv = await s.create("/c/only", "v");
        for (let i = 0; i < 5; i++) await s.create(`/c/n${i}`, "n");
        await s.compact(await s.currentRevision());
        expect(await s.get("/c/only")).toEqual(kv);
        expect(await s.count("/c")).toBe(6);
        const updated = await s.update("/c/only", "w", kv.modRevision);
        expect(updated.createRevision).toBe(kv.createRevision);
      });
    });

    describe("concurrent writers", () => {
      it("lets exactly one of many compare-and-swaps on the same revision win", async () => {
        const s = await open();
        const created = await s.create("/cc/x", "0");
        const outcomes = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => s.update("/cc/x", `w${i}`, created.modRevision)));
        const winners = outcomes.filter((o) => o.status === "fulfilled");
        expect(winners).toHaveLength(1);
        for (const o of outcomes) if (o.status === "rejected") expect((o.reason as { code: string }).code).toBe("Conflict");
        expect((await s.get("/cc/x"))?.value).toBe((winners[0] as PromiseFulfilledResult<{ value: string }>).value.value);
      });

      it("lets exactly one of many creates of the same key win", async () => {
        const s = await open();
        const outcomes = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => s.create("/cc/same", `w${i}`)));
        expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
        expect(await s.count("/cc")).toBe(1);
      });

      it("gives concurrent creates of different keys distinct, gap-free revisions", async () => {
        const s = await open();
        const start = await s.currentRevision();
        const created = await Promise.all(Array.from({ length: 100 }, (_, i) => s.create(`/cc/k${i}`, String(i))));
        const revisions = created.map((kv) => kv.modRevision).sort((a, b) => a - b);
        expect(revisions).toEqual(Array.from({ length: 100 }, (_, i) => start + 1 + i));
        expect(await s.count("/cc")).toBe(100);
      });
    });

    describe("against a reference model", () => {
      it("agrees on every result, every past state, paging and the watch replay for random histories", async () => {
        await fc.assert(
          fc.asyncProperty(fc.array(commandArbitrary, { minLength: 1, maxLength: 30 }), async (commands) => {
            const storage = await factory();
            try {
              const model = new ReferenceModel(await storage.currentRevision());
              for (const command of commands) {
                const [actual, expected] = await step(storage, model, command);
                expect(actual).toEqual(expected);
              }
              await expectMatchesModel(storage, model);
            } finally {
              await storage.close();
            }
          }),
          { numRuns: 25 },
        );
        // Each run opens a fresh backend; one that starts a server process needs more than the default 5 s.
      }, 60_000);
    });

    describe("close", () => {
      it("ends watches with ServiceUnavailable and rejects every later call", async () => {
        const s = await open();
        await s.create("/z/a", "a");
        const recorder = await record(s, "/z", 0);
        await s.close();
        expect(recorder.errors).toHaveLength(1);
        expect((recorder.errors[0] as { code?: string }).code).toBe("ServiceUnavailable");
        await expectCode(s.get("/z/a"), "ServiceUnavailable");
        await expectCode(s.list("/z"), "ServiceUnavailable");
        await expectCode(s.count("/z"), "ServiceUnavailable");
        await expectCode(s.create("/z/b", "b"), "ServiceUnavailable");
        await expectCode(s.update("/z/a", "b", 1), "ServiceUnavailable");
        await expectCode(s.delete("/z/a"), "ServiceUnavailable");
        await expectCode(s.watch("/z", { afterRevision: 0, onEvents: () => {} }), "ServiceUnavailable");
        await expectCode(s.currentRevision(), "ServiceUnavailable");
        await expectCode(s.compactedRevision(), "ServiceUnavailable");
        await expectCode(s.compact(1), "ServiceUnavailable");
        await s.close();
      });
    });
  });
}
