import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it, vi } from "vitest";
import type { KubeObject, WatchEvent } from "../api/types.js";
import { setup, widget } from "./test-fixtures.js";

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

describe("what a watched store keeps of past versions", () => {
  it("lets the decoded object of an old version go while storage still holds the version, and watchers still get every version right", async () => {
    // Storage that never compacts keeps every version of the object.
    const { store, storage } = setup();
    let first: WeakRef<object> | undefined;
    let lastColor: unknown;
    const selected: string[] = [];
    const all = await store.watch("default", {}, (event: WatchEvent) => {
      first ??= new WeakRef(event.object);
      lastColor = (event.object.spec as { color?: unknown } | undefined)?.color;
    });
    // A selector compares each version with the one before.
    const blue = await store.watch("default", { fieldSelector: "metadata.name=w" }, (event) => selected.push(event.type));
    const created = await store.create("default", widget("w", { color: "c0" }));
    const firstVersion = created.metadata!.resourceVersion!;
    let current: KubeObject = created;
    for (let i = 1; i <= 1500; i++) current = await store.update("default", "w", { ...current, spec: { color: `c${i}` } });
    await vi.waitFor(() => expect([lastColor, selected.length]).toEqual(["c1500", 1501]), { timeout: 5000, interval: 5 });
    expect(await storage.get("/registry/widgets/default/w", { revision: Number(firstVersion) })).toBeDefined();

    // deref() keeps its target alive until the current job ends, so collect first, look after.
    collectGarbage();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(first?.deref()).toBeUndefined();

    // A watch replaying from the first version decodes the versions again, each as it was.
    const replayed: unknown[] = [];
    const replay = await store.watch("default", { resourceVersion: firstVersion }, (event) =>
      replayed.push((event.object.spec as { color?: unknown } | undefined)?.color),
    );
    await vi.waitFor(() => expect(replayed).toHaveLength(1500), { timeout: 5000, interval: 5 });
    expect(replayed.slice(0, 2)).toEqual(["c1", "c2"]);
    expect(replayed.at(-1)).toBe("c1500");
    for (const watch of [all, blue, replay]) watch.stop();
  }, 30_000);
});
