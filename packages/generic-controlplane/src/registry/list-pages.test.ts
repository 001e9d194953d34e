import { afterEach, describe, expect, it } from "vitest";
import type { KubeObject } from "../api/types.js";
import type { KeyValue, ListOptions } from "../storage/types.js";
import { encodeContinueToken } from "./continue-token.js";
import { listPages, type ListContext } from "./list.js";
import { backends, closeAll, widget, widgets, type Backend } from "./test-fixtures.js";

afterEach(closeAll);

const decode = (kv: KeyValue): KubeObject => {
  const object = JSON.parse(kv.value) as KubeObject;
  (object.metadata ??= {}).resourceVersion = String(kv.modRevision);
  return object;
};

async function collect(pages: AsyncIterable<KubeObject[]>): Promise<KubeObject[][]> {
  const all: KubeObject[][] = [];
  for await (const page of pages) all.push(page);
  return all;
}

describe.each(backends)("listPages on $name", (backend: Backend) => {
  async function seeded(count: number) {
    const { store, storage } = await backend.open();
    for (let i = 0; i < count; i++)
      await store.create("default", widget(`w-${String(i).padStart(2, "0")}`, { labels: { parity: i % 2 === 0 ? "even" : "odd" } }));
    const reads: ListOptions[] = [];
    const ctx: ListContext = {
      definition: widgets,
      storage: {
        ...storage,
        list: (prefix, options) => {
          reads.push(options ?? {});
          return storage.list(prefix, options);
        },
        currentRevision: () => storage.currentRevision(),
        get: (key, options) => storage.get(key, options),
      },
      apiVersion: "v1",
      decode,
    };
    return { store, storage, ctx, reads };
  }

  it("reads every page at the first page's revision, however the collection changes meanwhile", async () => {
    const { store, storage, ctx, reads } = await seeded(10);
    const before = await storage.currentRevision();
    const list = await listPages(ctx, "/registry/widgets/default", {}, 3);
    expect(list?.metadata).toEqual({ resourceVersion: String(before) });
    expect(list?.kind).toBe("WidgetList");
    const iterator = list!.pages[Symbol.asyncIterator]();
    const first = await iterator.next();
    // Writes between pages do not show up in this list.
    await store.create("default", widget("w-03a"));
    await store.delete("default", "w-05");
    await store.create("default", widget("w-99"));
    const rest: KubeObject[][] = [];
    for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) rest.push(next.value);
    const names = [first.value as KubeObject[], ...rest].flat().map((o) => o.metadata?.name);
    expect(names).toEqual(Array.from({ length: 10 }, (_, i) => `w-${String(i).padStart(2, "0")}`));
    expect(rest.length).toBe(3);
    // Storage is asked for one page at a time at the snapshot, without counting the rest.
    expect(reads.every((read) => read.limit === 3 && read.countRemaining === false)).toBe(true);
    expect(reads.slice(1).every((read) => read.revision === before)).toBe(true);
  });

  it("reads the list anew, at the same revision, when its pages are iterated again", async () => {
    const { store, ctx } = await seeded(7);
    const list = await listPages(ctx, "/registry/widgets/default", {}, 3);
    const first = (await collect(list!.pages)).flat().map((o) => o.metadata?.name);
    await store.create("default", widget("w-02a"));
    const again = (await collect(list!.pages)).flat().map((o) => o.metadata?.name);
    expect(first).toHaveLength(7);
    expect(again).toEqual(first);
  });

  it("filters with selectors page by page and continues after a continue token's key", async () => {
    const { ctx } = await seeded(8);
    const odd = await listPages(ctx, "/registry/widgets/default", { labelSelector: "parity=odd" }, 3);
    expect((await collect(odd!.pages)).flat().map((o) => o.metadata?.name)).toEqual(["w-01", "w-03", "w-05", "w-07"]);
    const revision = Number(odd!.metadata.resourceVersion);
    const rest = await listPages(ctx, "/registry/widgets/default", { continue: encodeContinueToken({ revision, start: "w-04" }) }, 3);
    expect((await collect(rest!.pages)).flat().map((o) => o.metadata?.name)).toEqual(["w-05", "w-06", "w-07"]);
    expect(rest!.metadata.resourceVersion).toBe(String(revision));
  });

  it("leaves limited and single-name reads to listObjects, and rejects bad requests before any page", async () => {
    const { ctx } = await seeded(2);
    const exactKey = (name: string) => `/registry/widgets/default/${name}`;
    expect(await listPages(ctx, "/registry/widgets/default", { limit: 1 })).toBeUndefined();
    expect(await listPages({ ...ctx, exactKey }, "/registry/widgets/default", { fieldSelector: "metadata.name=w-01" })).toBeUndefined();
    await expect(listPages(ctx, "/registry/widgets/default", { labelSelector: "a b" })).rejects.toMatchObject({ code: "BadRequest" });
    await expect(
      listPages(ctx, "/registry/widgets/default", { resourceVersion: "999999", resourceVersionMatch: "NotOlderThan" }),
    ).rejects.toMatchObject({ code: "Timeout" });
  });

  it("answers 410 Expired before the first page when the snapshot was compacted", async () => {
    const { store, storage, ctx } = await seeded(3);
    const old = await storage.currentRevision();
    await store.create("default", widget("later"));
    await storage.compact(await storage.currentRevision());
    await expect(
      listPages(ctx, "/registry/widgets/default", { resourceVersion: String(old), resourceVersionMatch: "Exact" }),
    ).rejects.toMatchObject({
      code: "Expired",
      message: "The resourceVersion for the provided list is too old.",
    });
  });
});
