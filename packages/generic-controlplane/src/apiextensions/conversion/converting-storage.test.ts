import { afterEach, describe, expect, it } from "vitest";
import type { KubeObject } from "../../api/types.js";
import { isControlPlaneError } from "../../api/errors/control-plane-error.js";
import { createMemoryStorage } from "../../storage/index.js";
import type { Storage, StorageEvent } from "../../storage/types.js";
import type { CustomResourceConverter } from "../conversion.js";
import { convertingStorage } from "./converting-storage.js";

/**
 * The storage codec of a served version over real (memory) storage, with a converter that renames
 * v1's `color` to v2's `colour` and records every call.
 */

const V1 = "example.com/v1";
const V2 = "example.com/v2";
const KEY = (name: string) => `/registry/example.com/foos/ns/${name}`;

function recordingConverter(): CustomResourceConverter & { calls: Array<{ to: string; names: string[] }> } {
  const calls: Array<{ to: string; names: string[] }> = [];
  return {
    calls,
    convert(objects, apiVersion) {
      calls.push({ to: apiVersion, names: objects.map((o) => o.metadata?.name ?? "") });
      return Promise.resolve(
        objects.map((object) => {
          const { color, colour, ...rest } = object as KubeObject & { color?: string; colour?: string };
          return apiVersion === V2 ? { ...rest, apiVersion, colour: color } : { ...rest, apiVersion, color: colour };
        }),
      );
    },
  };
}

const v1 = (name: string, color = "red") => JSON.stringify({ apiVersion: V1, kind: "Foo", metadata: { name, namespace: "ns" }, color });
const v2 = (name: string, colour = "red") => JSON.stringify({ apiVersion: V2, kind: "Foo", metadata: { name, namespace: "ns" }, colour });

const opened: Storage[] = [];
afterEach(async () => {
  while (opened.length > 0) await opened.pop()!.close();
});

function setup(served = V2) {
  const inner = createMemoryStorage();
  opened.push(inner);
  const converter = recordingConverter();
  const storage = convertingStorage(inner, {
    converter,
    servedApiVersion: served,
    storageApiVersion: V1,
    knownApiVersions: new Set([V1, V2]),
  });
  return { inner, converter, storage };
}

describe("convertingStorage", () => {
  it("reads in the served version: nothing to do for objects already in it, one call per get or list page", async () => {
    const { inner, converter, storage } = setup();
    await inner.create(KEY("a"), v1("a"));
    await inner.create(KEY("b"), v2("b", "blue"));
    await inner.create(KEY("c"), v1("c", "green"));

    const stored = await inner.get(KEY("b"));
    expect(await storage.get(KEY("b"))).toEqual(stored);
    expect(converter.calls).toEqual([]);

    expect(JSON.parse((await storage.get(KEY("a")))!.value)).toMatchObject({ apiVersion: V2, colour: "red" });
    expect(converter.calls).toEqual([{ to: V2, names: ["a"] }]);

    converter.calls.length = 0;
    const page = await storage.list("/registry/example.com/foos", { limit: 2 });
    expect(page.items.map((kv) => JSON.parse(kv.value) as { apiVersion: string; colour: string })).toEqual([
      expect.objectContaining({ apiVersion: V2, colour: "red" }),
      expect.objectContaining({ apiVersion: V2, colour: "blue" }),
    ]);
    expect(page.remaining).toBe(1);
    const rest = await storage.list("/registry/example.com/foos", { startAfter: page.items[1]!.key, revision: page.revision });
    expect(JSON.parse(rest.items[0]!.value)).toMatchObject({ apiVersion: V2, colour: "green" });
    expect(converter.calls).toEqual([
      { to: V2, names: ["a"] },
      { to: V2, names: ["c"] },
    ]);
  });

  it("writes in the storage version and answers in the served one", async () => {
    const { inner, converter, storage } = setup();
    const created = await storage.create(KEY("a"), v2("a", "blue"));
    expect(JSON.parse(created.value)).toMatchObject({ apiVersion: V2, colour: "blue" });
    expect(JSON.parse((await inner.get(KEY("a")))!.value)).toMatchObject({ apiVersion: V1, color: "blue" });
    const updated = await storage.update(KEY("a"), v2("a", "black"), created.modRevision);
    expect(JSON.parse(updated.value)).toMatchObject({ apiVersion: V2, colour: "black" });
    const deleted = await storage.delete(KEY("a"), updated.modRevision);
    expect(JSON.parse(deleted.value)).toMatchObject({ apiVersion: V2, colour: "black" });
    expect(converter.calls.map((c) => c.to)).toEqual([V1, V2, V1, V2, V2]);
  });

  it("refuses versions the CRD does not have, with upstream's messages", async () => {
    const { inner, storage } = setup();
    await inner.create(KEY("a"), JSON.stringify({ apiVersion: "example.com/v9", kind: "Foo", metadata: { name: "a" } }));
    await inner.create(KEY("b"), v1("b"));
    const failure = async (work: Promise<unknown>) => {
      try {
        await work;
      } catch (error) {
        if (isControlPlaneError(error)) return [error.httpStatus, error.message];
        throw error;
      }
      throw new Error("no failure");
    };
    expect(await failure(storage.get(KEY("a")))).toEqual([500, "request to convert CR from an invalid group/version: example.com/v9"]);
    expect(await failure(storage.list("/registry/example.com/foos"))).toEqual([
      500,
      "request to convert CR list failed, list index 0 has invalid group/version: example.com/v9",
    ]);
  });

  it("converts each batch of watch events once for every watcher of the version, delivering them in order", async () => {
    const { inner, converter, storage } = setup();
    const start = await inner.currentRevision();
    const seen: StorageEvent[][] = [[], []];
    const watches = await Promise.all(
      seen.map((events) =>
        storage.watch("/registry/example.com/foos", { afterRevision: start, onEvents: (batch) => events.push(...batch) }),
      ),
    );
    const a = await inner.create(KEY("a"), v1("a"));
    await inner.update(KEY("a"), v1("a", "blue"), a.modRevision);
    await inner.create(KEY("b"), v2("b", "green"));
    const deadline = Date.now() + 5000;
    while (seen.some((events) => events.length < 3)) {
      if (Date.now() > deadline) throw new Error(`events within 5 s: ${JSON.stringify(seen)}`);
      await new Promise((resolve) => setImmediate(resolve));
    }
    for (const events of seen) {
      expect(events.map((e) => [e.type, JSON.parse(e.kv.value) as unknown])).toEqual([
        ["put", expect.objectContaining({ apiVersion: V2, colour: "red" })],
        ["put", expect.objectContaining({ apiVersion: V2, colour: "blue" })],
        ["put", expect.objectContaining({ apiVersion: V2, colour: "green" })],
      ]);
      expect(JSON.parse(events[1]!.prev!.value)).toMatchObject({ apiVersion: V2, colour: "red" });
    }
    // Both watchers got the very same converted events: each stored event was converted once.
    for (let i = 0; i < 3; i++) expect(seen[0]![i]).toBe(seen[1]![i]);
    expect(converter.calls.every((c) => c.to === V2 && c.names.every((n) => n === "a"))).toBe(true);
    for (const watch of watches) watch.stop();
  });
});
