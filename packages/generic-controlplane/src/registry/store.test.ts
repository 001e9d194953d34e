import { describe, expect, it } from "vitest";
import type { KubeObject } from "../api/types.js";
import { createGenericStore, createResourceStore } from "./store.js";
import { gadgets, rejection, setup, widget, widgets } from "./test-fixtures.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../admission/types.js";
import { createMemoryStorage } from "../storage/memory.js";
import type { Storage } from "../storage/types.js";

describe("create", () => {
  it("fills system metadata and stores under the core key", async () => {
    const { store, storage } = setup();
    const created = await store.create("default", widget("a", { color: "red" }));
    expect(created).toMatchObject({
      apiVersion: "v1",
      kind: "Widget",
      metadata: { name: "a", namespace: "default", creationTimestamp: "2026-01-02T03:04:05Z" },
      spec: { color: "red" },
    });
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    const kv = await storage.get("/registry/widgets/default/a");
    expect(created.metadata?.resourceVersion).toBe(String(kv?.modRevision));
    expect(created.metadata?.generation).toBeUndefined();
    expect((JSON.parse(kv?.value ?? "{}") as { metadata: { resourceVersion?: string } }).metadata.resourceVersion).toBeUndefined();
  });

  it("answers with what it stored, in an object neither the input nor the store shares", async () => {
    const { store } = setup();
    const input = widget("a", { color: "red" });
    const sent = JSON.stringify(input);
    const created = await store.create("default", input);
    // The answer is byte for byte what a read of the stored object gives.
    expect(JSON.stringify(created)).toBe(JSON.stringify(await store.get("default", "a")));
    expect(JSON.stringify(input)).toBe(sent);
    (created.spec as { color: string }).color = "blue";
    expect((await store.get("default", "a")).spec).toEqual({ color: "red" });
  });

  it("answers with what storage answered when storage keeps a value of its own", async () => {
    // As storage converting custom resources between versions does: the value it answers is not the one written.
    const storage = createMemoryStorage({ compactInterval: 0 });
    const stamping: Storage = Object.assign(Object.create(storage) as Storage, {
      create: async (key: string, value: string) => {
        const kv = await storage.create(key, value);
        const stored = JSON.parse(kv.value) as KubeObject;
        return { ...kv, value: JSON.stringify({ ...stored, spec: { ...(stored.spec as object), stamped: true } }) };
      },
    });
    const store = createGenericStore(widgets, stamping, { clock: () => new Date("2026-01-02T03:04:05.678Z") });
    const created = await store.create("default", widget("a", { color: "red" }));
    expect(created.spec).toEqual({ color: "red", stamped: true });
  });

  it("keys grouped cluster-scoped types by group and clears status, starting generation at 1", async () => {
    const { store, storage } = setup(gadgets);
    const created = await store.create(undefined, {
      metadata: { name: "g", namespace: "ignored" },
      spec: { a: 1 },
      status: { ready: true },
    });
    expect(created.metadata).toMatchObject({ name: "g", generation: 1 });
    expect(created.metadata?.namespace).toBeUndefined();
    expect(created.status).toBeUndefined();
    expect(created.apiVersion).toBe("example.com/v1");
    expect(await storage.get("/registry/example.com/gadgets/g")).toBeDefined();
  });

  it("answers a duplicate with 409 AlreadyExists", async () => {
    const { store } = setup();
    await store.create("default", widget("a"));
    const error = await rejection(store.create("default", widget("a")));
    expect(error.code).toBe("AlreadyExists");
    expect(error.message).toBe('widgets "a" already exists');
  });

  it("rejects a namespace mismatch and a resourceVersion", async () => {
    const { store } = setup();
    expect((await rejection(store.create("default", { metadata: { name: "a", namespace: "other" } }))).message).toBe(
      "the namespace of the provided object does not match the namespace sent on the request",
    );
    expect((await rejection(store.create("default", { metadata: { name: "a", resourceVersion: "3" } }))).code).toBe("BadRequest");
  });

  it("validates metadata and the strategy into one 422 with causes", async () => {
    const { store } = setup();
    const error = await rejection(store.create("default", { metadata: { name: "Bad_Name", labels: { "-x": "y" } }, spec: { color: 1 } }));
    expect(error.code).toBe("Invalid");
    expect(error.httpStatus).toBe(422);
    expect(error.message).toMatch(
      /^Widget "Bad_Name" is invalid: \[metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/,
    );
    expect(error.details?.causes?.map((c) => c.field)).toEqual(["metadata.name", "metadata.labels", "spec.color"]);
    expect(error.details?.causes?.[2]).toEqual({
      reason: "FieldValueInvalid",
      field: "spec.color",
      message: "Invalid value: 1: must be a string",
    });
  });

  it("generates names from generateName and retries on collision", async () => {
    const sequence = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1];
    let i = 0;
    const { store } = setup(widgets, { random: () => sequence[i++] ?? 2 });
    const first = await store.create("default", { metadata: { generateName: "demo-" } });
    expect(first.metadata?.name).toBe("demo-bbbbb");
    const second = await store.create("default", { metadata: { generateName: "demo-" } });
    // "demo-bbbbb" was taken: the next attempt drew new characters.
    expect(second.metadata?.name).toBe("demo-ccccc");
    const long = await store.create("default", { metadata: { generateName: "x".repeat(70) } });
    expect(long.metadata?.name).toHaveLength(63);
  });

  it("persists nothing on dryRun but still checks existence", async () => {
    const { store, storage } = setup();
    const before = await storage.currentRevision();
    const result = await store.create("default", widget("a"), { dryRun: true });
    expect(result.metadata?.uid).toBeDefined();
    expect(await storage.currentRevision()).toBe(before);
    await store.create("default", widget("a"));
    expect((await rejection(store.create("default", widget("a"), { dryRun: true }))).code).toBe("AlreadyExists");
  });

  it("answers wrongly typed metadata with 400 before validation", async () => {
    const { store } = setup();
    const error = await rejection(store.create("default", { metadata: { name: "a", labels: { n: 1 } } } as unknown as KubeObject));
    expect(error.code).toBe("BadRequest");
    expect(error.message).toBe(
      'Widget in version "v1" cannot be handled as a Widget: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string',
    );
  });

  it("defaults apiVersion and kind from the definition", async () => {
    const { store } = setup();
    const created = await store.create("default", { metadata: { name: "a" }, data: { x: "y" } });
    expect(created).toMatchObject({ apiVersion: "v1", kind: "Widget" });
  });
});

describe("get", () => {
  it("returns 404 with the upstream wording", async () => {
    const { store } = setup();
    const error = await rejection(store.get("default", "x"));
    expect(error.code).toBe("NotFound");
    expect(error.message).toBe('widgets "x" not found');
    expect(error.toStatus().details).toEqual({ name: "x", kind: "widgets" });
  });

  it("returns a copy the caller may mutate", async () => {
    const { store } = setup();
    await store.create("default", widget("a", { color: "red" }));
    const got = await store.get("default", "a");
    (got.spec as { color: string }).color = "blue";
    expect((await store.get("default", "a")).spec).toEqual({ color: "red" });
  });
});

describe("update", () => {
  it("answers with what it stored, in an object neither the input nor the store shares", async () => {
    const { store } = setup(gadgets);
    await store.create(undefined, { metadata: { name: "g" }, spec: { a: 1 } }, { fieldManager: "creator" });
    const writes: Array<[KubeObject, { subresource?: string; fieldManager?: string }]> = [
      [{ metadata: { name: "g", labels: { x: "y" } }, spec: { a: 2, b: [1, 2] } }, { fieldManager: "editor" }],
      [
        { metadata: { name: "g" }, spec: { a: 2, b: [1, 2] }, status: { ready: true } },
        { subresource: "status", fieldManager: "kubelet" },
      ],
      [{ metadata: { name: "g", annotations: { n: "9007199254740993" } }, spec: { a: 9007199254740993n } }, {}],
    ];
    for (const [input, options] of writes) {
      const sent = JSON.stringify(input, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value));
      const updated = await store.update(undefined, "g", input, options);
      // The answer is byte for byte what a read of the stored object gives.
      const read = await store.get(undefined, "g");
      expect(updated).toEqual(read);
      expect(Object.keys(updated)).toEqual(Object.keys(read));
      expect(JSON.stringify(input, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value))).toBe(sent);
      (updated.spec as { a: number }).a = 100;
      expect((await store.get(undefined, "g")).spec).not.toMatchObject({ a: 100 });
    }
  });

  it("answers with what storage answered when storage keeps a value of its own", async () => {
    const storage = createMemoryStorage({ compactInterval: 0 });
    const stamping: Storage = Object.assign(Object.create(storage) as Storage, {
      update: async (key: string, value: string, revision: number) => {
        const kv = await storage.update(key, value, revision);
        const stored = JSON.parse(kv.value) as KubeObject;
        return { ...kv, value: JSON.stringify({ ...stored, spec: { ...(stored.spec as object), stamped: true } }) };
      },
    });
    const store = createGenericStore(widgets, stamping, { clock: () => new Date("2026-01-02T03:04:05.678Z") });
    await store.create("default", widget("a", { color: "red" }));
    const updated = await store.update("default", "a", widget("a", { color: "blue" }));
    expect(updated.spec).toEqual({ color: "blue", stamped: true });
  });

  it("conflicts on a stale resourceVersion and is unconditional without one", async () => {
    const { store } = setup();
    const created = await store.create("default", widget("a", { color: "red" }));
    const updated = await store.update("default", "a", { ...created, spec: { color: "blue" } });
    expect(Number(updated.metadata?.resourceVersion)).toBeGreaterThan(Number(created.metadata?.resourceVersion));
    const stale = await rejection(store.update("default", "a", { ...created, spec: { color: "green" } }));
    expect(stale.code).toBe("Conflict");
    expect(stale.message).toBe(
      'Operation cannot be fulfilled on widgets "a": the object has been modified; please apply your changes to the latest version and try again',
    );
    const unconditional = await store.update("default", "a", { metadata: { name: "a" }, spec: { color: "green" } });
    expect(unconditional.spec).toEqual({ color: "green" });
    expect(unconditional.metadata?.uid).toBe(created.metadata?.uid);
    expect(unconditional.metadata?.creationTimestamp).toBe(created.metadata?.creationTimestamp);
  });

  it("returns 404 for a missing object and 400 for a name mismatch", async () => {
    const { store } = setup();
    expect((await rejection(store.update("default", "a", widget("a")))).code).toBe("NotFound");
    await store.create("default", widget("a"));
    expect((await rejection(store.update("default", "a", widget("b")))).message).toBe(
      "the name of the object (b) does not match the name on the URL (a)",
    );
  });

  it("rejects changes to immutable metadata", async () => {
    const { store } = setup();
    const created = await store.create("default", widget("a"));
    const error = await rejection(store.update("default", "a", { ...created, metadata: { ...created.metadata, uid: "other" } }));
    expect(error.code).toBe("Invalid");
    expect(error.details?.causes).toEqual([
      { reason: "FieldValueInvalid", field: "metadata.uid", message: 'Invalid value: "other": field is immutable' },
    ]);
  });

  it("does not write when nothing changed", async () => {
    const { store, storage } = setup();
    const created = await store.create("default", widget("a", { color: "red" }));
    const before = await storage.currentRevision();
    const same = await store.update("default", "a", created, { fieldManager: "m" });
    expect(same.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
    expect(await storage.currentRevision()).toBe(before);
  });

  it("splits status from the main resource and bumps generation on spec changes only", async () => {
    const { store } = setup(gadgets);
    const created = await store.create(undefined, { metadata: { name: "g" }, spec: { size: 1 } });
    const withStatus = await store.update(undefined, "g", { ...created, status: { ready: true } }, { subresource: "status" });
    expect(withStatus.status).toEqual({ ready: true });
    expect(withStatus.metadata?.generation).toBe(1);
    const ignoredSpec = await store.update(
      undefined,
      "g",
      { ...withStatus, spec: { size: 9 }, status: { ready: false } },
      { subresource: "status" },
    );
    expect(ignoredSpec.spec).toEqual({ size: 1 });
    expect(ignoredSpec.status).toEqual({ ready: false });
    // Metadata stays writable through /status (conformance: "should apply changes to a namespace status").
    const annotated = await store.update(
      undefined,
      "g",
      { ...ignoredSpec, metadata: { ...ignoredSpec.metadata, annotations: { patched: "yes" } } },
      { subresource: "status" },
    );
    expect(annotated.metadata?.annotations).toEqual({ patched: "yes" });
    expect(annotated.metadata?.generation).toBe(1);
    const specChange = await store.update(undefined, "g", { ...annotated, spec: { size: 2 }, status: { ready: true } });
    expect(specChange.spec).toEqual({ size: 2 });
    expect(specChange.status).toEqual({ ready: false });
    expect(specChange.metadata?.generation).toBe(2);
    const labelsOnly = await store.update(undefined, "g", { ...specChange, metadata: { ...specChange.metadata, labels: { a: "b" } } });
    expect(labelsOnly.metadata?.generation).toBe(2);
  });

  it("guaranteedUpdate retries on a concurrent write and honours a resourceVersion precondition", async () => {
    const { store } = setup();
    const created = await store.create("default", widget("a", { labels: { n: "0" } }));
    let calls = 0;
    const result = await store.guaranteedUpdate("default", "a", async (current) => {
      calls++;
      if (calls === 1)
        await store.update("default", "a", { ...current, metadata: { ...current.metadata, labels: { n: "1" }, resourceVersion: "" } });
      return { ...current, metadata: { ...current.metadata, annotations: { seen: current.metadata?.labels?.n ?? "" } } };
    });
    expect(calls).toBe(2);
    expect(result.metadata?.annotations).toEqual({ seen: "1" });
    const error = await rejection(
      store.guaranteedUpdate("default", "a", (current) => ({
        ...current,
        metadata: { ...current.metadata, resourceVersion: created.metadata?.resourceVersion ?? "" },
      })),
    );
    expect(error.code).toBe("Conflict");
  });

  it("serialises concurrent guaranteedUpdates without losing any", async () => {
    const { store } = setup();
    await store.create("default", { metadata: { name: "counter", annotations: { n: "0" } } });
    await Promise.all(
      Array.from({ length: 8 }, () =>
        store.guaranteedUpdate("default", "counter", (current) => ({
          ...current,
          metadata: { ...current.metadata, annotations: { n: String(Number(current.metadata?.annotations?.n) + 1) } },
        })),
      ),
    );
    expect((await store.get("default", "counter")).metadata?.annotations).toEqual({ n: "8" });
  });

  it("forbids new finalizers after deletion started and deletes when the last one goes", async () => {
    const { store } = setup();
    await store.create("default", { metadata: { name: "a", finalizers: ["example.com/hold"] } });
    const { object: deleting, deleted } = await store.delete("default", "a");
    expect(deleted).toBe(false);
    expect(deleting.metadata).toMatchObject({
      deletionTimestamp: "2026-01-02T03:04:05Z",
      deletionGracePeriodSeconds: 0,
      finalizers: ["example.com/hold"],
    });
    const added = await rejection(
      store.update("default", "a", {
        ...deleting,
        metadata: { ...deleting.metadata, finalizers: ["example.com/hold", "example.com/more"] },
      }),
    );
    expect(added.code).toBe("Invalid");
    expect(added.details?.causes?.[0]?.message).toBe(
      'Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/more"}',
    );
    const { deletionTimestamp: _dropped, ...withoutTimestamp } = deleting.metadata ?? {};
    const kept = await store.update("default", "a", { ...deleting, metadata: { ...withoutTimestamp, labels: { x: "y" } } });
    expect(kept.metadata?.deletionTimestamp).toBe(deleting.metadata?.deletionTimestamp);
    const removed = await store.update("default", "a", { ...kept, metadata: { ...kept.metadata, finalizers: [] } });
    expect(removed.metadata?.finalizers).toEqual([]);
    expect((await rejection(store.get("default", "a"))).code).toBe("NotFound");
  });

  it("lets server-internal writes set deletionTimestamp and a strategy decide when the object goes", async () => {
    const { store } = setup({
      ...gadgets,
      strategy: {
        shouldDeleteDuringUpdate: (o) =>
          !!o.metadata?.deletionTimestamp && ((o.spec as { finalizers?: string[] }).finalizers ?? []).length === 0,
      },
    });
    await store.create(undefined, { metadata: { name: "ns" }, spec: { finalizers: ["kubernetes"] } });
    const terminating = await store.guaranteedUpdate(
      undefined,
      "ns",
      (cur) => ({ ...cur, metadata: { ...cur.metadata, deletionTimestamp: "2026-01-02T03:04:05Z" }, status: { phase: "Terminating" } }),
      { subresource: "status", allowSettingDeletionTimestamp: true },
    );
    expect(terminating.metadata?.deletionTimestamp).toBe("2026-01-02T03:04:05Z");
    expect(terminating.status).toEqual({ phase: "Terminating" });
    await store.guaranteedUpdate(undefined, "ns", (cur) => ({ ...cur, spec: { finalizers: [] } }));
    expect((await rejection(store.get(undefined, "ns"))).code).toBe("NotFound");
  });
});

describe("delete", () => {
  it("deletes immediately without finalizers and returns the last state", async () => {
    const { store } = setup();
    const created = await store.create("default", widget("a"));
    const result = await store.delete("default", "a");
    expect(result.deleted).toBe(true);
    expect(result.object.metadata?.uid).toBe(created.metadata?.uid);
    expect(Number(result.object.metadata?.resourceVersion)).toBeGreaterThan(Number(created.metadata?.resourceVersion));
    expect((await rejection(store.delete("default", "a"))).code).toBe("NotFound");
  });

  it("checks uid and resourceVersion preconditions", async () => {
    const { store } = setup();
    await store.create("default", widget("a"));
    const uid = await rejection(store.delete("default", "a", { preconditions: { uid: "nope" } }));
    expect(uid.code).toBe("Conflict");
    expect(uid.message).toMatch(
      /^Operation cannot be fulfilled on widgets "a": Precondition failed: UID in precondition: nope, UID in object meta: /,
    );
    const rv = await rejection(store.delete("default", "a", { preconditions: { resourceVersion: "999" } }));
    expect(rv.message).toMatch(/Precondition failed: ResourceVersion in precondition: 999, ResourceVersion in object meta: \d+$/);
  });

  it.each([
    ["Orphan", ["orphan"]],
    ["Foreground", ["foregroundDeletion"]],
  ] as const)("propagationPolicy %s stores the %j finalizer", async (policy, finalizers) => {
    const { store } = setup();
    await store.create("default", widget("a"));
    const result = await store.delete("default", "a", { propagationPolicy: policy });
    expect(result.deleted).toBe(false);
    expect((await store.get("default", "a")).metadata).toMatchObject({ finalizers, deletionGracePeriodSeconds: 0 });
  });

  it("bumps generation when finalizers make deletion start, like markAsDeleting", async () => {
    const { store } = setup(gadgets);
    await store.create(undefined, { metadata: { name: "g", finalizers: ["example.com/hold"] }, spec: {} });
    const { object } = await store.delete(undefined, "g");
    expect(object.metadata).toMatchObject({ generation: 2, deletionGracePeriodSeconds: 0 });
    const again = await store.delete(undefined, "g");
    expect(again.object.metadata?.generation).toBe(2);
    expect(again.object.metadata?.resourceVersion).toBe(object.metadata?.resourceVersion);
  });

  it("dryRun leaves the object in place", async () => {
    const { store } = setup();
    await store.create("default", widget("a"));
    expect((await store.delete("default", "a", {}, { dryRun: true })).deleted).toBe(true);
    expect((await store.get("default", "a")).metadata?.name).toBe("a");
  });

  it("deleteCollection removes only what the selector matches", async () => {
    const { store } = setup();
    await store.create("default", widget("a", { labels: { e2e: "true" } }));
    await store.create("default", widget("b", { labels: { e2e: "true" } }));
    await store.create("default", widget("c"));
    await store.create("other", widget("d", { labels: { e2e: "true" } }));
    const deleted = await store.deleteCollection("default", { labelSelector: "e2e=true" });
    expect(deleted.items.map((o) => o.metadata?.name)).toEqual(["a", "b"]);
    expect((await store.list(undefined)).items.map((o) => o.metadata?.name)).toEqual(["c", "d"]);
  });
});

describe("admission", () => {
  it("runs admit, then validation, then validate, with the request's attributes", async () => {
    const seen: string[] = [];
    const plugin: AdmissionPlugin = {
      name: "test",
      admit(a: AdmissionAttributes) {
        seen.push(`admit ${a.operation} ${a.namespace ?? "-"}/${a.name} dryRun=${a.dryRun}`);
        if (a.object) a.object.metadata = { ...a.object.metadata, labels: { admitted: "yes" } };
      },
      validate(a: AdmissionAttributes) {
        seen.push(
          `validate ${a.operation} old=${a.oldObject?.metadata?.name ?? "-"} labels=${JSON.stringify(a.object?.metadata?.labels ?? null)}`,
        );
        if (a.object?.metadata?.name === "blocked") throw new Error("denied");
      },
    };
    const { store } = setup(widgets, { admission: [plugin] });
    const created = await store.create("default", widget("a"));
    expect(created.metadata?.labels).toEqual({ admitted: "yes" });
    await store.update("default", "a", created, { dryRun: true });
    await store.delete("default", "a");
    await expect(store.create("default", widget("blocked"))).rejects.toThrow("denied");
    expect(seen).toEqual([
      "admit CREATE default/a dryRun=false",
      'validate CREATE old=- labels={"admitted":"yes"}',
      "admit UPDATE default/a dryRun=true",
      'validate UPDATE old=a labels={"admitted":"yes"}',
      "admit DELETE default/a dryRun=false",
      "validate DELETE old=a labels=null",
      "admit CREATE default/blocked dryRun=false",
      'validate CREATE old=- labels={"admitted":"yes"}',
    ]);
  });

  it("runs CONNECT admission with the connect options as the object, and a denial ends it", async () => {
    const seen: string[] = [];
    const plugin: AdmissionPlugin = {
      name: "test",
      admit: (a: AdmissionAttributes) =>
        void seen.push(
          `admit ${a.operation} ${a.namespace ?? "-"}/${a.name}/${a.subresource} ${a.object?.kind ?? "-"} options=${JSON.stringify(a.options ?? null)}`,
        ),
      validate(a: AdmissionAttributes) {
        seen.push(`validate ${a.operation} ${JSON.stringify((a.object as { command?: string[] } | undefined)?.command ?? null)}`);
        if ((a.object as { command?: string[] } | undefined)?.command?.[0] === "rm") throw new Error("denied");
      },
    };
    const { store } = setup(widgets, { admission: [plugin] });
    await store.connect!("default", "a", "exec", { apiVersion: "v1", kind: "PodExecOptions", command: ["ls"] });
    await expect(store.connect!("default", "a", "exec", { apiVersion: "v1", kind: "PodExecOptions", command: ["rm"] })).rejects.toThrow(
      "denied",
    );
    expect(seen).toEqual([
      "admit CONNECT default/a/exec PodExecOptions options=null",
      'validate CONNECT ["ls"]',
      "admit CONNECT default/a/exec PodExecOptions options=null",
      'validate CONNECT ["rm"]',
    ]);
  });

  it("does not let a rejected object reach validation when validation fails first", async () => {
    let validated = 0;
    const { store } = setup(widgets, { admission: [{ name: "count", validate: () => void validated++ }] });
    await expect(store.create("default", widget("Bad"))).rejects.toThrow(/is invalid/);
    expect(validated).toBe(0);
  });
});

describe("managedFields", () => {
  it("records an Update entry per field manager with the fields it set", async () => {
    const { store } = setup();
    const created = await store.create(
      "default",
      { metadata: { name: "a", labels: { app: "x" } }, data: { k: "v" } },
      { fieldManager: "kubectl-create" },
    );
    expect(created.metadata?.managedFields).toEqual([
      {
        manager: "kubectl-create",
        operation: "Update",
        apiVersion: "v1",
        time: "2026-01-02T03:04:05Z",
        fieldsType: "FieldsV1",
        fieldsV1: { "f:data": { ".": {}, "f:k": {} }, "f:metadata": { "f:labels": { ".": {}, "f:app": {} } } },
      },
    ]);
    const labelled = await store.update(
      "default",
      "a",
      { ...created, metadata: { ...created.metadata, labels: { app: "x", tier: "y" } } },
      { fieldManager: "kubectl-label" },
    );
    expect(labelled.metadata?.managedFields?.map((e) => [e.manager, e.fieldsV1])).toEqual([
      ["kubectl-create", { "f:data": { ".": {}, "f:k": {} }, "f:metadata": { "f:labels": { ".": {}, "f:app": {} } } }],
      ["kubectl-label", { "f:metadata": { "f:labels": { "f:tier": {} } } }],
    ]);
    const changed = await store.update("default", "a", { ...labelled, data: { k: "w" } }, { fieldManager: "kubectl-edit" });
    // Entries of one time sort by manager; the creator keeps `data` itself, the editor takes its key.
    expect(changed.metadata?.managedFields?.map((e) => [e.manager, e.fieldsV1])).toEqual([
      ["kubectl-create", { "f:data": {}, "f:metadata": { "f:labels": { ".": {}, "f:app": {} } } }],
      ["kubectl-edit", { "f:data": { "f:k": {} } }],
      ["kubectl-label", { "f:metadata": { "f:labels": { "f:tier": {} } } }],
    ]);
    // A body echoing the stored entries keeps ownership going.
    const replaced = await store.update(
      "default",
      "a",
      { ...changed, metadata: { ...changed.metadata, labels: { app: "z", tier: "y" } } },
      { fieldManager: "kubectl-replace" },
    );
    expect(replaced.metadata?.managedFields?.map((e) => [e.manager, e.fieldsV1])).toEqual([
      ["kubectl-create", { "f:data": {}, "f:metadata": { "f:labels": {} } }],
      ["kubectl-edit", { "f:data": { "f:k": {} } }],
      ["kubectl-label", { "f:metadata": { "f:labels": { "f:tier": {} } } }],
      ["kubectl-replace", { "f:metadata": { "f:labels": { "f:app": {} } } }],
    ]);
    // An empty list resets them, and the object is untracked from then on (upstream skipNonAppliedManager).
    const reset = await store.update(
      "default",
      "a",
      { ...replaced, data: { k: "r" }, metadata: { ...replaced.metadata, managedFields: [] } },
      { fieldManager: "kubectl-reset" },
    );
    expect(reset.data).toEqual({ k: "r" });
    expect(reset.metadata?.managedFields).toBeUndefined();
    const untracked = await store.update("default", "a", { ...reset, data: { k: "s" } }, { fieldManager: "kubectl-edit" });
    expect(untracked.metadata?.managedFields).toBeUndefined();
  });
});

describe("updateStored", () => {
  function genericSetup(admission: AdmissionPlugin[] = []) {
    const { storage } = setup();
    return { storage, store: createGenericStore(gadgets, storage, { admission, clock: () => new Date("2026-01-02T03:04:05.678Z") }) };
  }

  it("writes what mutate returns without strategy, admission or managedFields, and skips a write that changes nothing", async () => {
    let admitted = 0;
    const { store } = genericSetup([{ name: "count", admit: () => void admitted++ }]);
    const created = await store.create(undefined, { metadata: { name: "g" }, spec: { a: 1 } });
    admitted = 0;
    // A status change through the main path would be dropped (status subresource); here it is stored as given.
    const updated = await store.updateStored(undefined, "g", (current) => ({ ...current, status: { phase: "Gone" } }));
    expect(updated.status).toEqual({ phase: "Gone" });
    expect(updated.metadata?.generation).toBe(created.metadata?.generation);
    expect(Number(updated.metadata?.resourceVersion)).toBeGreaterThan(Number(created.metadata?.resourceVersion));
    const same = await store.updateStored(undefined, "g", (current) => current);
    expect(same.metadata?.resourceVersion).toBe(updated.metadata?.resourceVersion);
    expect(admitted).toBe(0);
  });

  it("checks preconditions against the stored object, and dryRun stores nothing", async () => {
    const { store } = genericSetup();
    const created = await store.create(undefined, { metadata: { name: "g" } });
    const uid = await rejection(store.updateStored(undefined, "g", (c) => c, { preconditions: { uid: "other" } }));
    expect(uid).toMatchObject({
      code: "Conflict",
      message: `Operation cannot be fulfilled on gadgets.example.com "g": Precondition failed: UID in precondition: other, UID in object meta: ${created.metadata?.uid}`,
    });
    const rv = await rejection(store.updateStored(undefined, "g", (c) => c, { preconditions: { resourceVersion: "999" } }));
    expect(rv.message).toBe(
      `Operation cannot be fulfilled on gadgets.example.com "g": Precondition failed: ResourceVersion in precondition: 999, ResourceVersion in object meta: ${created.metadata?.resourceVersion}`,
    );
    const dry = await store.updateStored(undefined, "g", (c) => ({ ...c, spec: { b: 2 } }), {
      dryRun: true,
      preconditions: { uid: created.metadata?.uid ?? "" },
    });
    expect(dry.spec).toEqual({ b: 2 });
    expect((await store.get(undefined, "g")).spec).toBeUndefined();
    expect((await rejection(store.updateStored(undefined, "missing", (c) => c))).code).toBe("NotFound");
  });

  it("validateDeletion runs every admit then every validate with the stored object as old", async () => {
    const seen: string[] = [];
    const plugins: AdmissionPlugin[] = ["one", "two"].map((name) => ({
      name,
      admit: (a: AdmissionAttributes) =>
        void seen.push(
          `${name} admit ${a.operation} ${a.name} old=${a.oldObject?.metadata?.uid ?? "-"} object=${a.object === undefined ? "-" : "set"}`,
        ),
      validate: (a: AdmissionAttributes) => void seen.push(`${name} validate ${a.operation} dryRun=${a.dryRun}`),
    }));
    const { store } = genericSetup(plugins);
    const created = await store.create(undefined, { metadata: { name: "g" } });
    seen.length = 0;
    await store.validateDeletion(undefined, "g", created, { dryRun: true });
    const uid = created.metadata?.uid ?? "";
    expect(seen).toEqual([
      `one admit DELETE g old=${uid} object=-`,
      `two admit DELETE g old=${uid} object=-`,
      "one validate DELETE dryRun=true",
      "two validate DELETE dryRun=true",
    ]);
  });
});

describe("storedAs", () => {
  it("serves a type from another type's keys, converting on write and read", async () => {
    const { storage, store: core } = setup();
    const renamed = createResourceStore(
      {
        ...widgets,
        group: "new.example.com",
        kind: "Thing",
        plural: "things",
        storedAs: {
          group: "",
          plural: "widgets",
          toStorage: ({ shade, ...rest }) => ({ ...rest, apiVersion: "v1", kind: "Widget", spec: { color: shade } }),
          fromStorage: ({ spec, ...rest }) => ({
            ...rest,
            apiVersion: "new.example.com/v1",
            kind: "Thing",
            shade: (spec as { color?: string } | undefined)?.color,
          }),
        },
      },
      storage,
    );
    const created = await renamed.create("default", { metadata: { name: "t" }, shade: "teal" });
    expect(created).toMatchObject({ apiVersion: "new.example.com/v1", kind: "Thing", shade: "teal" });
    const viaCore = await core.get("default", "t");
    expect(viaCore).toMatchObject({ apiVersion: "v1", kind: "Widget", spec: { color: "teal" } });
    expect(viaCore.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
    await core.delete("default", "t");
    await expect(renamed.get("default", "t")).rejects.toMatchObject({ code: "NotFound", message: 'things.new.example.com "t" not found' });
  });
});

describe("graceful delete (a strategy's gracefulDeletePeriod)", () => {
  // A pod-like type: the period asked for, else the object's own, and 0 when nothing runs it.
  const graceful = {
    ...widgets,
    strategy: {
      gracefulDeletePeriod: (o: KubeObject, requested: number | undefined) =>
        (o.spec as { node?: string } | undefined)?.node === undefined ? 0 : (requested ?? (o.spec as { grace?: number }).grace ?? 30),
    },
  };

  it("keeps the object with deletionTimestamp now + period until a DELETE with grace 0", async () => {
    const { store } = setup(graceful);
    await store.create("default", { metadata: { name: "p" }, spec: { node: "n1", grace: 30 } });
    const first = await store.delete("default", "p");
    expect(first.deleted).toBe(false);
    expect(first.object.metadata).toMatchObject({ deletionTimestamp: "2026-01-02T03:04:35Z", deletionGracePeriodSeconds: 30 });
    expect(first.object.metadata?.finalizers).toBeUndefined();
    // Writes during the grace period (a kubelet reporting stopped containers) keep it.
    const updated = await store.guaranteedUpdate("default", "p", (o) => ({
      ...o,
      metadata: { ...o.metadata, labels: { stopped: "yes" } },
    }));
    expect(updated.metadata?.labels).toEqual({ stopped: "yes" });
    expect((await store.get("default", "p")).metadata?.deletionGracePeriodSeconds).toBe(30);
    // Asking again with the same or a longer period changes nothing.
    const again = await store.delete("default", "p", { gracePeriodSeconds: 60 });
    expect(again).toEqual({ object: updated, deleted: false });
    // A shorter period moves the deadline earlier.
    const shorter = await store.delete("default", "p", { gracePeriodSeconds: 10 });
    expect(shorter.deleted).toBe(false);
    expect(shorter.object.metadata).toMatchObject({ deletionTimestamp: "2026-01-02T03:04:15Z", deletionGracePeriodSeconds: 10 });
    const now = await store.delete("default", "p", { gracePeriodSeconds: 0 });
    expect(now.deleted).toBe(true);
    expect((await rejection(store.get("default", "p"))).code).toBe("NotFound");
  });

  it("deletes at once when the strategy gives 0 or the request asks for 0", async () => {
    const { store } = setup(graceful);
    await store.create("default", { metadata: { name: "unscheduled" }, spec: {} });
    expect((await store.delete("default", "unscheduled")).deleted).toBe(true);
    await store.create("default", { metadata: { name: "forced" }, spec: { node: "n1" } });
    expect((await store.delete("default", "forced", { gracePeriodSeconds: 0 })).deleted).toBe(true);
  });

  it("with finalizers marks the object with the grace period, not 0", async () => {
    const { store } = setup(graceful);
    await store.create("default", { metadata: { name: "f", finalizers: ["example.com/hold"] }, spec: { node: "n1", grace: 5 } });
    const { object, deleted } = await store.delete("default", "f");
    expect(deleted).toBe(false);
    expect(object.metadata).toMatchObject({ deletionGracePeriodSeconds: 5, finalizers: ["example.com/hold"] });
  });

  it("is not consulted by types without the hook", async () => {
    const { store } = setup();
    await store.create("default", widget("w"));
    expect((await store.delete("default", "w", { gracePeriodSeconds: 30 })).deleted).toBe(true);
  });
});
