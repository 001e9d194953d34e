import { afterEach, describe, expect, it } from "vitest";
import type { DeleteOptions } from "../api/types.js";
import type { ControlPlaneError } from "../api/errors/control-plane-error.js";
import type { ResourceStore } from "../registry/types.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../admission/types.js";
import { rejection } from "../registry/test-fixtures.js";
import { createMemoryStorage } from "../storage/memory.js";
import type { Storage } from "../storage/types.js";
import { createNamespaceStorage } from "./namespace-store.js";
import type { Namespace } from "./namespaces.js";

// Ports of upstream's pkg/registry/core/namespace/storage/storage_test.go, plus the preconditions,
// admission and dry-run behaviour of the same REST storage.

const NOW = new Date("2026-01-02T03:04:05.678Z");
const EARLIER = "2025-12-31T00:00:00Z";

const storages: Storage[] = [];
afterEach(async () => {
  for (const storage of storages.splice(0)) await storage.close();
});

function setup(admission: AdmissionPlugin[] = []): { storage: Storage; store: ResourceStore; finalize: ResourceStore } {
  const storage = createMemoryStorage({ compactInterval: 0 });
  storages.push(storage);
  const { store, subresources } = createNamespaceStorage(storage, { admission, clock: () => NOW });
  return { storage, store, finalize: subresources.finalize };
}

/** Writes a namespace straight into storage, like upstream's tests (`storage.store.Storage.Create`). */
async function putRaw(storage: Storage, namespace: Namespace): Promise<void> {
  const object: Namespace = {
    apiVersion: "v1",
    kind: "Namespace",
    ...namespace,
    metadata: { uid: "uid-1", creationTimestamp: EARLIER, ...namespace.metadata },
  };
  await storage.create(`/registry/namespaces/${object.metadata?.name ?? ""}`, JSON.stringify(object));
}

async function exists(store: ResourceStore, name: string): Promise<boolean> {
  try {
    await store.get(undefined, name);
    return true;
  } catch (error) {
    if ((error as ControlPlaneError).code === "NotFound") return false;
    throw error;
  }
}

describe("namespace REST storage", () => {
  it("creates namespaces Active with a uid and the kubernetes finalizer (TestCreateSetsFields)", async () => {
    const { store } = setup();
    await store.create(undefined, { metadata: { name: "foo" } });
    const actual = (await store.get(undefined, "foo")) as Namespace;
    expect(actual.metadata?.name).toBe("foo");
    expect(actual.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(actual.status?.phase).toBe("Active");
    expect(actual.spec?.finalizers).toEqual(["kubernetes"]);
  });

  it("the first DELETE only starts termination, and the object is always the answer (TestDelete, ReturnDeletedObject)", async () => {
    const { store } = setup();
    const created = await store.create(undefined, { metadata: { name: "foo" } });
    const first = await store.delete(undefined, "foo");
    expect(first.deleted).toBe(false);
    expect(first.returnDeletedObject).toBe(true);
    expect(first.object).toMatchObject({
      kind: "Namespace",
      metadata: { name: "foo", deletionTimestamp: "2026-01-02T03:04:05Z" },
      status: { phase: "Terminating" },
    });
    expect(first.object.metadata?.deletionGracePeriodSeconds).toBeUndefined();
    expect(first.object.metadata?.generation).toBe(created.metadata?.generation);
    expect(await exists(store, "foo")).toBe(true);
  });

  it("a first DELETE keeps a namespace whose spec finalizers are already gone; the next one removes it", async () => {
    const { store, finalize } = setup();
    const created = await store.create(undefined, { metadata: { name: "foo" } });
    await finalize.update(undefined, "foo", { ...created, spec: { finalizers: [] } }, { subresource: "finalize" });
    const first = await store.delete(undefined, "foo");
    expect(first).toMatchObject({ deleted: false, object: { status: { phase: "Terminating" } } });
    expect(await exists(store, "foo")).toBe(true);
    const second = await store.delete(undefined, "foo");
    expect(second).toMatchObject({
      deleted: true,
      returnDeletedObject: true,
      object: { kind: "Namespace", metadata: { name: "foo", uid: created.metadata?.uid } },
    });
    expect(await exists(store, "foo")).toBe(false);
  });

  it("DELETE of a terminating namespace with spec finalizers left answers it and keeps it (TestDeleteNamespaceWithIncompleteFinalizers)", async () => {
    const { storage, store } = setup();
    await putRaw(storage, {
      metadata: { name: "foo", deletionTimestamp: EARLIER },
      spec: { finalizers: ["kubernetes"] },
      status: { phase: "Terminating" },
    });
    const result = await store.delete(undefined, "foo");
    expect(result.deleted).toBe(false);
    expect(result.object.metadata?.name).toBe("foo");
    expect(result.object.metadata?.deletionTimestamp).toBe(EARLIER);
    expect(await exists(store, "foo")).toBe(true);
  });

  it("DELETE of a terminating namespace without spec finalizers removes it (TestDeleteNamespaceWithCompleteFinalizers)", async () => {
    const { storage, store } = setup();
    await putRaw(storage, {
      metadata: { name: "foo", deletionTimestamp: EARLIER },
      spec: { finalizers: [] },
      status: { phase: "Terminating" },
    });
    const result = await store.delete(undefined, "foo");
    expect(result).toMatchObject({ deleted: true, object: { metadata: { name: "foo" } } });
    expect(await exists(store, "foo")).toBe(false);
  });

  it("DELETE of a terminating namespace whose metadata finalizers remain keeps it (generic finalizer rule)", async () => {
    const { storage, store } = setup();
    await putRaw(storage, {
      metadata: { name: "foo", deletionTimestamp: EARLIER, finalizers: ["example.com/foo"] },
      spec: {},
      status: { phase: "Terminating" },
    });
    const result = await store.delete(undefined, "foo");
    expect(result).toMatchObject({ deleted: false, object: { metadata: { finalizers: ["example.com/foo"] } } });
    expect(await exists(store, "foo")).toBe(true);
  });

  // Upstream stores these with phase Active; here the main update path checks the phase against
  // deletionTimestamp (as the status strategy does upstream), so they are stored as termination leaves them.
  it("an update of a deleting namespace with metadata finalizers left keeps it (TestUpdateDeletingNamespaceWithIncompleteMetadataFinalizers)", async () => {
    const { storage, store } = setup();
    await putRaw(storage, {
      metadata: { name: "foo", deletionTimestamp: EARLIER, finalizers: ["example.com/foo"] },
      spec: { finalizers: [] },
      status: { phase: "Terminating" },
    });
    await store.update(undefined, "foo", await store.get(undefined, "foo"));
    expect(await exists(store, "foo")).toBe(true);
  });

  it("an update of a deleting namespace with spec finalizers left keeps it (TestUpdateDeletingNamespaceWithIncompleteSpecFinalizers)", async () => {
    const { storage, store } = setup();
    await putRaw(storage, {
      metadata: { name: "foo", deletionTimestamp: EARLIER },
      spec: { finalizers: ["kubernetes"] },
      status: { phase: "Terminating" },
    });
    const current = await store.get(undefined, "foo");
    await store.update(undefined, "foo", { ...current, metadata: { ...current.metadata, labels: { touched: "yes" } } });
    expect((await store.get(undefined, "foo")).metadata?.labels).toMatchObject({ touched: "yes" });
  });

  it("an update removing the last metadata finalizer of a deleting namespace removes it (TestUpdateDeletingNamespaceWithCompleteFinalizers)", async () => {
    const { storage, store } = setup();
    await putRaw(storage, {
      metadata: { name: "foo", deletionTimestamp: EARLIER, finalizers: ["example.com/foo"] },
      status: { phase: "Terminating" },
    });
    const current = await store.get(undefined, "foo");
    const { finalizers: _finalizers, ...metadata } = current.metadata ?? {};
    await store.update(undefined, "foo", { ...current, metadata });
    expect(await exists(store, "foo")).toBe(false);
  });

  it("finalizing the last spec finalizer of a deleting namespace removes it (TestFinalizeDeletingNamespaceWithCompleteFinalizers)", async () => {
    const { storage, store, finalize } = setup();
    await putRaw(storage, {
      metadata: { name: "foo", deletionTimestamp: EARLIER },
      spec: { finalizers: ["kubernetes"] },
      status: { phase: "Terminating" },
    });
    const current = await store.get(undefined, "foo");
    const finalized = await finalize.update(undefined, "foo", { ...current, spec: {} }, { subresource: "finalize" });
    expect(finalized.metadata?.name).toBe("foo");
    expect(await exists(store, "foo")).toBe(false);
  });

  it("finalizing a deleting namespace with metadata finalizers left keeps it (TestFinalizeDeletingNamespaceWithIncompleteMetadataFinalizers)", async () => {
    const { storage, store, finalize } = setup();
    await putRaw(storage, {
      metadata: { name: "foo", deletionTimestamp: EARLIER, finalizers: ["example.com/foo"] },
      spec: { finalizers: ["kubernetes"] },
      status: { phase: "Terminating" },
    });
    const current = await store.get(undefined, "foo");
    await finalize.update(undefined, "foo", { ...current, spec: {} }, { subresource: "finalize" });
    const after = (await store.get(undefined, "foo")) as Namespace;
    expect(after.spec?.finalizers).toBeUndefined();
    expect(after.metadata?.finalizers).toEqual(["example.com/foo"]);
  });

  it("finalize writes spec.finalizers only: status stays, names are validated, a stale resourceVersion conflicts", async () => {
    const { store, finalize } = setup();
    const created = (await store.create(undefined, { metadata: { name: "foo" } })) as Namespace;
    const updated = (await finalize.update(
      undefined,
      "foo",
      { ...created, spec: { finalizers: ["example.com/x"] }, status: { phase: "Terminating" } },
      { subresource: "finalize" },
    )) as Namespace;
    expect(updated.spec?.finalizers).toEqual(["example.com/x"]);
    expect(updated.status?.phase).toBe("Active");
    const invalid = await rejection(
      finalize.update(undefined, "foo", { ...updated, spec: { finalizers: ["bad"] } }, { subresource: "finalize" }),
    );
    expect(invalid).toMatchObject({ code: "Invalid" });
    expect(invalid.message).toBe(
      `Namespace "foo" is invalid: spec.finalizers: Invalid value: "bad": name is neither a standard finalizer name nor is it fully qualified`,
    );
    const stale = await rejection(finalize.update(undefined, "foo", { ...created, spec: {} }, { subresource: "finalize" }));
    expect(stale.code).toBe("Conflict");
    // The main resource never changes spec.finalizers.
    const plain = (await store.update(undefined, "foo", { ...updated, spec: { finalizers: [] } })) as Namespace;
    expect(plain.spec?.finalizers).toEqual(["example.com/x"]);
  });

  it("checks DELETE preconditions with upstream's messages and leaves the namespace as it was", async () => {
    const { store } = setup();
    const created = await store.create(undefined, { metadata: { name: "foo" } });
    const uid = await rejection(store.delete(undefined, "foo", { preconditions: { uid: "other" } }));
    expect(uid).toMatchObject({
      code: "Conflict",
      message: `Operation cannot be fulfilled on namespaces "foo": Precondition failed: UID in precondition: other, UID in object meta: ${created.metadata?.uid}`,
    });
    expect(uid.details).toMatchObject({ name: "foo", kind: "namespaces" });
    const rv = await rejection(store.delete(undefined, "foo", { preconditions: { resourceVersion: "999" } }));
    expect(rv.message).toBe(
      `Operation cannot be fulfilled on namespaces "foo": Precondition failed: ResourceVersion in precondition: 999, ResourceVersion in object meta: ${created.metadata?.resourceVersion}`,
    );
    const unchanged = await store.get(undefined, "foo");
    expect(unchanged).toEqual(created);
    const matching = await store.delete(undefined, "foo", {
      preconditions: { uid: created.metadata?.uid ?? "", resourceVersion: created.metadata?.resourceVersion ?? "" },
    });
    expect(matching.object.metadata?.deletionTimestamp).toBeDefined();
  });

  it("dry-run DELETE answers the terminating namespace and stores nothing", async () => {
    const { store } = setup();
    const created = await store.create(undefined, { metadata: { name: "foo" } });
    const result = await store.delete(undefined, "foo", { propagationPolicy: "Orphan" }, { dryRun: true });
    expect(result.object).toMatchObject({
      metadata: { deletionTimestamp: "2026-01-02T03:04:05Z", finalizers: ["orphan"] },
      status: { phase: "Terminating" },
    });
    expect(await store.get(undefined, "foo")).toEqual(created);
  });

  it("runs admission once per DELETE and per finalize, with the stored namespace as the old object", async () => {
    const seen: string[] = [];
    const recorder: AdmissionPlugin = {
      name: "recorder",
      admit: (a: AdmissionAttributes) =>
        void seen.push(`admit ${a.operation} ${a.subresource || "-"} ${a.name} old=${a.oldObject?.metadata?.resourceVersion ?? "-"}`),
      validate: (a: AdmissionAttributes) => {
        seen.push(`validate ${a.operation} ${a.subresource || "-"} phase=${(a.oldObject as Namespace | undefined)?.status?.phase ?? "-"}`);
        if (a.operation === "DELETE" && a.name === "guarded") throw new Error("denied");
      },
    };
    const { store, finalize } = setup([recorder]);
    const created = await store.create(undefined, { metadata: { name: "foo" } });
    await store.create(undefined, { metadata: { name: "guarded" } });
    seen.length = 0;
    const terminating = await store.delete(undefined, "foo");
    await finalize.update(undefined, "foo", { ...terminating.object, spec: {} }, { subresource: "finalize" });
    const rv = created.metadata?.resourceVersion ?? "";
    const terminatingRv = terminating.object.metadata?.resourceVersion ?? "";
    expect(seen).toEqual([
      `admit DELETE - foo old=${rv}`,
      "validate DELETE - phase=Active",
      `admit UPDATE finalize foo old=${terminatingRv}`,
      "validate UPDATE finalize phase=Terminating",
    ]);
    const guarded = await store.get(undefined, "guarded");
    await expect(store.delete(undefined, "guarded")).rejects.toThrow("denied");
    expect(await store.get(undefined, "guarded")).toEqual(guarded);
  });

  it("serves no deletecollection", () => {
    const { store } = setup();
    expect("deleteCollection" in store).toBe(false);
  });
});

describe("namespace DELETE and garbage-collection finalizers (TestDeleteWithGCFinalizers)", () => {
  const cases: Array<[string, DeleteOptions | undefined, string[], string[]]> = [
    ["nil-with-orphan", undefined, ["orphan"], ["orphan"]],
    ["nil-with-delete", undefined, ["foregroundDeletion"], ["foregroundDeletion"]],
    ["nil-without-finalizers", undefined, [], []],
    ["propagation-background-with-orphan", { propagationPolicy: "Background" }, ["orphan"], []],
    ["propagation-background-with-delete", { propagationPolicy: "Background" }, ["foregroundDeletion"], []],
    ["propagation-background-without-finalizers", { propagationPolicy: "Background" }, [], []],
    ["propagation-foreground-with-orphan", { propagationPolicy: "Foreground" }, ["orphan"], ["foregroundDeletion"]],
    ["propagation-foreground-with-delete", { propagationPolicy: "Foreground" }, ["foregroundDeletion"], ["foregroundDeletion"]],
    ["propagation-foreground-without-finalizers", { propagationPolicy: "Foreground" }, [], ["foregroundDeletion"]],
    ["propagation-orphan-with-orphan", { propagationPolicy: "Orphan" }, ["orphan"], ["orphan"]],
    ["propagation-orphan-with-delete", { propagationPolicy: "Orphan" }, ["foregroundDeletion"], ["orphan"]],
    ["propagation-orphan-without-finalizers", { propagationPolicy: "Orphan" }, [], ["orphan"]],
    ["orphan-dependents-with-orphan", { orphanDependents: true }, ["orphan"], ["orphan"]],
    ["orphan-dependents-with-delete", { orphanDependents: true }, ["foregroundDeletion"], ["orphan"]],
    ["orphan-dependents-without-finalizers", { orphanDependents: true }, [], ["orphan"]],
    // Namespace-specific (upstream shouldHaveDeleteDependentsFinalizer): not orphaning means foreground.
    ["no-orphan-dependents-with-orphan", { orphanDependents: false }, ["orphan"], ["foregroundDeletion"]],
    [
      "other-finalizers-stay",
      { propagationPolicy: "Foreground" },
      ["example.com/keep", "orphan"],
      ["example.com/keep", "foregroundDeletion"],
    ],
  ];

  it.each(cases)("%s", async (name, deleteOptions, existing, remaining) => {
    const { storage, store } = setup();
    await putRaw(storage, {
      metadata: { name, ...(existing.length > 0 ? { finalizers: existing } : {}) },
      spec: { finalizers: [] },
      status: { phase: "Active" },
    });
    const result = await store.delete(undefined, name, deleteOptions);
    expect(result.deleted).toBe(false);
    expect(result.object.kind).toBe("Namespace");
    expect(result.object.metadata?.finalizers ?? []).toEqual(remaining);
    expect((await store.get(undefined, name)).metadata?.finalizers ?? []).toEqual(remaining);
  });
});
