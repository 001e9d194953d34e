import { afterEach, describe, expect, it } from "vitest";
import { decodeContinueToken } from "./continue-token.js";
import { backends, closeAll, rejection, widget, type Backend } from "./test-fixtures.js";

async function seeded(backend: Backend) {
  const ctx = await backend.open();
  const { store } = ctx;
  await store.create("default", widget("a", { labels: { app: "web" }, color: "red" }));
  await store.create("default", widget("b", { labels: { app: "db" }, color: "blue" }));
  await store.create("default", widget("c", { labels: { app: "web", tier: "x" }, color: "red" }));
  await store.create("kube-system", widget("d", { labels: { app: "web" }, color: "red" }));
  await store.create("kube-system", widget("e", { color: "green" }));
  return ctx;
}

const names = (list: { items: { metadata?: { name?: string } }[] }) => list.items.map((o) => o.metadata?.name);

afterEach(closeAll);

describe.each(backends)("list on $name", (backend: Backend) => {
  it("lists a namespace or everything, with the list kind and current revision", async () => {
    const { store, storage } = await seeded(backend);
    const list = await store.list("default");
    expect(list).toMatchObject({
      apiVersion: "v1",
      kind: "WidgetList",
      metadata: { resourceVersion: String(await storage.currentRevision()) },
    });
    expect(names(list)).toEqual(["a", "b", "c"]);
    expect(names(await store.list(undefined))).toEqual(["a", "b", "c", "d", "e"]);
    expect(names(await store.list("nothing"))).toEqual([]);
  });

  it("filters by label and field selectors, including the type's own fields", async () => {
    const { store } = await seeded(backend);
    expect(names(await store.list(undefined, { labelSelector: "app=web" }))).toEqual(["a", "c", "d"]);
    expect(names(await store.list(undefined, { labelSelector: "app in (web,db),!tier" }))).toEqual(["a", "b", "d"]);
    expect(names(await store.list(undefined, { fieldSelector: "metadata.namespace=kube-system" }))).toEqual(["d", "e"]);
    expect(names(await store.list(undefined, { fieldSelector: "metadata.name=b" }))).toEqual(["b"]);
    expect(names(await store.list("default", { fieldSelector: "color!=red", labelSelector: "app" }))).toEqual(["b"]);
    const error = await rejection(store.list(undefined, { fieldSelector: "spec.size=1" }));
    expect(error.code).toBe("BadRequest");
    expect(error.message).toBe("field label not supported: spec.size");
    expect((await rejection(store.list(undefined, { labelSelector: "a b" }))).httpStatus).toBe(400);
  });

  it("reads objects stored with null labels, annotations and finalizers (written by older versions) under selectors", async () => {
    const { store, storage } = await seeded(backend);
    const legacy = {
      apiVersion: "v1",
      kind: "Widget",
      metadata: { name: "n", namespace: "default", uid: "u", labels: null, annotations: null, finalizers: null },
    };
    await storage.create("/registry/widgets/default/n", JSON.stringify(legacy));
    expect(names(await store.list("default", { labelSelector: "app=web" }))).toEqual(["a", "c"]);
    expect(names(await store.list(undefined, { labelSelector: "!app" }))).toEqual(["n", "e"]);
    expect(names(await store.list(undefined, { labelSelector: "app notin (db)" }))).toEqual(["a", "c", "n", "d", "e"]);
    const removed = await store.deleteCollection("default", { labelSelector: "!tier" });
    expect(names(removed)).toEqual(["a", "b", "n"]);
    expect(names(await store.list(undefined))).toEqual(["c", "d", "e"]);
  });

  it("pages with limit/continue over one snapshot and reports remainingItemCount", async () => {
    const { store } = await seeded(backend);
    const first = await store.list(undefined, { limit: 2 });
    expect(names(first)).toEqual(["a", "b"]);
    expect(first.metadata.remainingItemCount).toBe(3);
    expect(first.metadata.continue).toBeTruthy();
    // Writes after the first page do not show up in later pages.
    await store.create("default", widget("bb"));
    await store.delete("kube-system", "e");
    const second = await store.list(undefined, { limit: 2, continue: first.metadata.continue ?? "" });
    expect(names(second)).toEqual(["c", "d"]);
    expect(second.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
    const third = await store.list(undefined, { limit: 2, continue: second.metadata.continue ?? "" });
    expect(names(third)).toEqual(["e"]);
    expect(third.metadata.continue).toBeUndefined();
    expect(third.metadata.remainingItemCount).toBeUndefined();
  });

  it("fills pages with matching items when a selector filters, without remainingItemCount", async () => {
    const { store } = await seeded(backend);
    const first = await store.list(undefined, { limit: 2, labelSelector: "app=web" });
    expect(names(first)).toEqual(["a", "c"]);
    expect(first.metadata.remainingItemCount).toBeUndefined();
    const second = await store.list(undefined, { limit: 2, labelSelector: "app=web", continue: first.metadata.continue ?? "" });
    expect(names(second)).toEqual(["d"]);
    expect(second.metadata.continue).toBeUndefined();
  });

  it("answers a compacted continue token with 410 and an inconsistent token that continues at the latest state", async () => {
    const { store, storage } = await seeded(backend);
    const first = await store.list(undefined, { limit: 2 });
    await store.create("default", widget("z"));
    await store.update("default", "c", { metadata: { name: "c" }, spec: { color: "pink" } });
    await storage.compact(await storage.currentRevision());
    const error = await rejection(store.list(undefined, { limit: 2, continue: first.metadata.continue ?? "" }));
    expect(error.code).toBe("Expired");
    expect(error.httpStatus).toBe(410);
    expect(error.message).toMatch(/^The provided continue parameter is too old to display a consistent list result\./);
    expect(decodeContinueToken(error.continueToken ?? "").revision).toBe(-1);
    expect(error.toStatus().metadata.continue).toBe(error.continueToken);
    const rest = await store.list(undefined, { limit: 10, continue: error.continueToken ?? "" });
    // Keys sort by namespace first, so the new default/z comes before kube-system/d.
    expect(names(rest)).toEqual(["c", "z", "d", "e"]);
    expect(rest.items[0]?.spec).toEqual({ color: "pink" });
  });

  it("reads an exact past resourceVersion, and 410 once it is compacted", async () => {
    const { store, storage } = await seeded(backend);
    const before = (await store.list("default")).metadata.resourceVersion ?? "";
    await store.delete("default", "a");
    expect(names(await store.list("default", { resourceVersion: before, resourceVersionMatch: "Exact" }))).toEqual(["a", "b", "c"]);
    // NotOlderThan and "0" take any state at least that new (upstream serves them from its watch
    // cache): before the delete or after it, each at its own resourceVersion.
    for (const request of [{ resourceVersion: before, resourceVersionMatch: "NotOlderThan" as const }, { resourceVersion: "0" }]) {
      const list = await store.list("default", request);
      expect(Number(list.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(before));
      expect(names(list)).toEqual(Number(list.metadata.resourceVersion) > Number(before) ? ["b", "c"] : ["a", "b", "c"]);
    }
    expect(names(await store.list("default"))).toEqual(["b", "c"]);
    await storage.compact(await storage.currentRevision());
    const error = await rejection(store.list("default", { resourceVersion: before, resourceVersionMatch: "Exact" }));
    expect(error.code).toBe("Expired");
    expect(error.message).toBe("The resourceVersion for the provided list is too old.");
  });

  it("answers a resourceVersion from the future with 504 ResourceVersionTooLarge", async () => {
    const { store } = await seeded(backend);
    const error = await rejection(store.list("default", { resourceVersion: "9999", resourceVersionMatch: "NotOlderThan" }));
    expect(error.code).toBe("Timeout");
    // apierrors.NewTimeoutError prefixes "Timeout: ".
    expect(error.message).toMatch(/^Timeout: Too large resource version: 9999, current: \d+$/);
    expect(error.details?.retryAfterSeconds).toBe(1);
    expect(error.details?.causes?.[0]?.reason).toBe("ResourceVersionTooLarge");
  });

  it.each([
    [
      { resourceVersionMatch: "Exact" as const },
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
    ],
    [
      { resourceVersion: "0", resourceVersionMatch: "Exact" as const },
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
    ],
  ])("rejects invalid list options %j", async (request, message) => {
    const { store } = await seeded(backend);
    const error = await rejection(store.list("default", request));
    expect(error.code).toBe("Invalid");
    expect(error.message).toBe(message);
  });

  it("rejects a garbled continue token with 400", async () => {
    const { store } = await seeded(backend);
    expect((await rejection(store.list("default", { continue: "not-a-token" }))).code).toBe("BadRequest");
  });
});

describe.each(backends)("list by name on $name", (backend: Backend) => {
  it("reads one object for metadata.name, honouring the other selectors and past revisions", async () => {
    const { store } = await seeded(backend);
    expect(names(await store.list("default", { fieldSelector: "metadata.name=b" }))).toEqual(["b"]);
    expect(names(await store.list(undefined, { fieldSelector: "metadata.name=d,metadata.namespace=kube-system" }))).toEqual(["d"]);
    expect(names(await store.list(undefined, { fieldSelector: "metadata.name=d" }))).toEqual(["d"]);
    expect(names(await store.list("default", { fieldSelector: "metadata.name=b", labelSelector: "app=web" }))).toEqual([]);
    expect(names(await store.list("default", { fieldSelector: "metadata.name=zz" }))).toEqual([]);
    const before = (await store.list("default", { fieldSelector: "metadata.name=a" })).metadata.resourceVersion ?? "";
    await store.delete("default", "a");
    expect(names(await store.list("default", { fieldSelector: "metadata.name=a" }))).toEqual([]);
    expect(
      names(await store.list("default", { fieldSelector: "metadata.name=a", resourceVersion: before, resourceVersionMatch: "Exact" })),
    ).toEqual(["a"]);
  });
});
