/**
 * Ports, onto this package's built-in types (ConfigMap, Secret, Lease, Namespace and ObjectMeta):
 *   - apimachinery `managedfields/internal/fieldmanager_test.go`: TestUpdateApplyConflict,
 *     TestApplyStripsFields, TestVersionCheck, TestApplyDoesNotStripLabels, TestApplyNewObject,
 *     TestApplyFailsWithManagedFields, TestApplySuccessWithNoManagedFields, TestNoOpChanges,
 *     TestResetManagedFieldsEmptyList, TestResetManagedFieldsEmptyItem, TestUpdateViaSubresources;
 *   - `skipnonapplied_test.go` (TestNoUpdateBeforeFirstApply, TestUpdateBeforeFirstApply),
 *     `capmanagers_test.go` TestCapManagersManagerMergesEntries (at the real cap of 10),
 *     `managedfieldsupdater_test.go` (the *DoesModifyTime / *DoesNotModifyTime / TakingOver /
 *     CoOwning cases);
 *   - structured-merge-diff `merge/set_test.go`, `multiple_appliers_test.go`, `key_test.go` and
 *     `leaf_test.go` scenarios where they apply: sets (metadata.finalizers), associative lists keyed
 *     by uid with atomic items (metadata.ownerReferences), granular maps (data, labels), atomic
 *     lists (Namespace spec.finalizers, `+listType=atomic` upstream), and associative lists with
 *     granular items, untyped fields and atomic maps in a custom resource schema.
 *     The client-side apply annotation is kept in step on kubectl's applies (`lastappliedupdater_test.go`).
 * Left out: `lastappliedmanager_test.go` (letting an apply through conflicts with the client-side
 * manager when the last-applied annotation agrees), TestApplyWithInvalidLastApplied, version
 * conversion between managers (one version per resource here), scale subresource and the
 * probabilistic tracking on create (upstream's default probability is 1, which is what this does).
 */
import { describe, expect, it } from "vitest";
import type { KubeObject, ManagedFieldsEntry } from "../api/types.js";
import { isControlPlaneError } from "../api/errors/control-plane-error.js";
import type { ResourceDefinition } from "../registry/rest/resource-definition.js";
import { configMapsResource } from "../resources/config-maps.js";
import { leasesResource } from "../resources/leases.js";
import { namespacesResource } from "../resources/namespaces.js";
import { clusterRolesResource } from "../rbac/resources.js";
import { secretsResource } from "../resources/secrets.js";
import type { JSONSchemaProps } from "../schema/types.js";
import { BEFORE_FIRST_APPLY, FieldManager } from "./field-manager.js";
import { ANCIENT_CHANGES, MAX_UPDATE_MANAGERS } from "./managed-fields.js";

/** Like upstream's TestFieldManager: a live object that updates and applies go through. */
class Live {
  object: KubeObject | undefined;
  private readonly fm: FieldManager;
  private tick = 0;

  constructor(private readonly definition: ResourceDefinition) {
    this.fm = new FieldManager({
      apiVersion: definition.group === "" ? definition.version : `${definition.group}/${definition.version}`,
      kind: definition.kind,
      schema: definition.schema,
      statusSubresource: definition.statusSubresource === true,
    });
  }

  /** Each operation happens one second after the previous one. */
  private now(): string {
    return new Date(Date.UTC(2026, 0, 1, 0, 0, this.tick++)).toISOString().replace(/\.\d+Z$/, "Z");
  }

  update(next: KubeObject, manager: string, subresource: "" | "status" = ""): KubeObject {
    const object = structuredClone(next);
    const managed = this.fm.update(this.object, object, { manager, subresource, time: this.now() });
    const metadata = { ...(object.metadata ?? {}), uid: "u-1" };
    if (managed === undefined) delete metadata.managedFields;
    else metadata.managedFields = managed;
    this.object = { ...object, metadata };
    return this.object;
  }

  apply(config: KubeObject, manager: string, force = false): KubeObject {
    const result = this.fm.apply(this.object, structuredClone(config), { manager, subresource: "", time: this.now(), force });
    this.object = { ...result, metadata: { ...result.metadata, uid: "u-1" } };
    return this.object;
  }

  get managedFields(): ManagedFieldsEntry[] {
    return this.object?.metadata?.managedFields ?? [];
  }

  fieldsOf(manager: string, operation = "Apply"): unknown {
    return this.managedFields.find((e) => e.manager === manager && e.operation === operation)?.fieldsV1;
  }
}

const cm = (metadata: Record<string, unknown>, data?: Record<string, string>): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "cm", namespace: "default", ...metadata },
  ...(data === undefined ? {} : { data }),
});

function conflictOf(run: () => unknown): { message: string; causes: unknown } {
  try {
    run();
  } catch (error) {
    if (isControlPlaneError(error) && error.code === "Conflict") return { message: error.message, causes: error.details?.causes };
    throw error;
  }
  throw new Error("expected a conflict");
}

describe("FieldManager.update", () => {
  it("owns on create what the object sets, but not identity and system metadata (TestApplyStripsFields)", () => {
    const live = new Live(configMapsResource);
    live.update(
      cm(
        { labels: { app: "x" }, uid: "ignored", resourceVersion: "1", creationTimestamp: "2026-01-01T00:00:00Z", generation: 2 },
        { a: "1" },
      ),
      "creator",
    );
    expect(live.managedFields).toEqual([
      {
        manager: "creator",
        operation: "Update",
        apiVersion: "v1",
        time: "2026-01-01T00:00:00Z",
        fieldsType: "FieldsV1",
        fieldsV1: { "f:data": { ".": {}, "f:a": {} }, "f:metadata": { "f:labels": { ".": {}, "f:app": {} } } },
      },
    ]);
  });

  it("owns the fields of a top-level struct on create, not the struct (a new typed object has it empty)", () => {
    const live = new Live(leasesResource);
    live.update(
      {
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: { name: "l" },
        spec: { holderIdentity: "me", leaseDurationSeconds: 15 },
      },
      "kube-scheduler",
    );
    expect(live.fieldsOf("kube-scheduler", "Update")).toEqual({ "f:spec": { "f:holderIdentity": {}, "f:leaseDurationSeconds": {} } });
  });

  it("keeps an update that changes nothing from touching times (TestManagedFieldsUpdateWithoutChangesDoesNotModifyTime)", () => {
    const live = new Live(configMapsResource);
    live.update(cm({}, { key: "value" }), "m");
    const before = live.managedFields;
    live.update(cm({}, { key: "value" }), "m");
    expect(live.managedFields).toEqual(before);
    live.update(cm({}, { key: "new-value" }), "m");
    expect(live.managedFields[0]?.time).not.toBe(before[0]?.time);
  });

  it("takes changed fields from other managers without touching their times, and drops managers left with nothing", () => {
    const live = new Live(configMapsResource);
    live.update(cm({}, { key_a: "value", key_b: "value" }), "a");
    const aTime = live.managedFields[0]?.time;
    live.update(cm({}, { key_a: "value", key_b: "new-value" }), "b");
    expect(live.managedFields.map((e) => [e.manager, e.time, e.fieldsV1])).toEqual([
      ["a", aTime, { "f:data": { ".": {}, "f:key_a": {} } }],
      ["b", "2026-01-01T00:00:01Z", { "f:data": { "f:key_b": {} } }],
    ]);
    live.update(cm({}, { key_a: "x", key_b: "new-value" }), "b");
    live.update(cm({}, { key_b: "new-value" }), "b");
    // a still owns `data` itself; taking key_a and removing it leave it that.
    expect(live.managedFields.map((e) => [e.manager, e.fieldsV1])).toEqual([
      ["a", { "f:data": {} }],
      ["b", { "f:data": { "f:key_b": {} } }],
    ]);
  });

  it("takes the managedFields a client sends, resets them on [] or [{}], and ignores bogus ones", () => {
    const live = new Live(configMapsResource);
    live.update(cm({ labels: { app: "x" } }), "creator");
    const stored = live.managedFields;

    // Bogus entries (here: an unknown operation) leave the stored ones in charge.
    live.update(
      cm({
        labels: { app: "y" },
        managedFields: [{ manager: "evil", operation: "Steal", apiVersion: "v1", fieldsType: "FieldsV1", fieldsV1: {} }],
      }),
      "editor",
    );
    expect(live.managedFields.map((e) => e.manager)).toEqual(["creator", "editor"]);
    expect(live.managedFields[0]).toEqual({ ...stored[0], fieldsV1: { "f:metadata": { "f:labels": {} } } });

    // Well-formed entries replace the stored ones.
    const handWritten: ManagedFieldsEntry[] = [
      {
        manager: "owner",
        operation: "Apply",
        apiVersion: "v1",
        time: "2020-01-01T00:00:00Z",
        fieldsType: "FieldsV1",
        fieldsV1: { "f:metadata": { "f:labels": { "f:app": {} } } },
      },
    ];
    live.update({ ...live.object, metadata: { ...live.object?.metadata, managedFields: handWritten } }, "editor");
    expect(live.managedFields).toEqual(handWritten);

    for (const reset of [[], [{}]] as ManagedFieldsEntry[][]) {
      live.update(
        { ...live.object, metadata: { ...live.object?.metadata, labels: { app: `reset-${reset.length}` }, managedFields: reset } },
        "resetter",
      );
      expect(live.managedFields).toEqual([]);
      expect(live.object?.metadata?.managedFields).toBeUndefined();
    }
  });

  it("drops bogus managedFields sent on create", () => {
    const live = new Live(configMapsResource);
    live.update(
      cm({ labels: { app: "x" }, managedFields: [{ manager: "evil", operation: "Update", apiVersion: "v1", fieldsType: "FieldsV2" }] }),
      "creator",
    );
    expect(live.managedFields.map((e) => e.manager)).toEqual(["creator"]);
  });

  it("ignores managedFields sent to a subresource and owns only status through it (TestUpdateViaSubresources)", () => {
    const live = new Live(namespacesResource);
    const ns = (extra: Record<string, unknown>): KubeObject => ({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "ns" },
      ...extra,
    });
    live.update(ns({ spec: { finalizers: ["kubernetes"] } }), "creator");
    live.update(
      ns({
        metadata: {
          name: "ns",
          managedFields: [{ manager: "evil", operation: "Apply", apiVersion: "v1", fieldsType: "FieldsV1", fieldsV1: {} }],
        },
        spec: { finalizers: [] },
        status: { phase: "Active" },
      }),
      "namespace-controller",
      "status",
    );
    expect(live.managedFields.map((e) => [e.manager, e.subresource, e.fieldsV1])).toEqual([
      ["creator", undefined, { "f:spec": { "f:finalizers": {} } }],
      ["namespace-controller", "status", { "f:status": { ".": {}, "f:phase": {} } }],
    ]);
    // Status written through the main resource is nobody's.
    live.update(ns({ spec: { finalizers: ["kubernetes"] }, status: { phase: "Terminating" } }), "creator");
    expect(live.fieldsOf("creator", "Update")).toEqual({ "f:spec": { "f:finalizers": {} } });
  });

  it(`merges the oldest of more than ${MAX_UPDATE_MANAGERS} updaters into ${ANCIENT_CHANGES} (TestCapManagersManagerMergesEntries)`, () => {
    const live = new Live(configMapsResource);
    const labels: Record<string, string> = {};
    for (let i = 1; i <= MAX_UPDATE_MANAGERS + 2; i++) {
      labels[`l${i}`] = "true";
      live.update(cm({ labels: { ...labels } }), `updater-${i}`);
    }
    const names = live.managedFields.map((e) => e.manager);
    expect(names).toHaveLength(MAX_UPDATE_MANAGERS);
    expect(names[0]).toBe(ANCIENT_CHANGES);
    expect(names.slice(1)).toEqual(Array.from({ length: MAX_UPDATE_MANAGERS - 1 }, (_, i) => `updater-${i + 4}`));
    expect(live.managedFields[0]?.fieldsV1).toEqual({ "f:metadata": { "f:labels": { ".": {}, "f:l1": {}, "f:l2": {}, "f:l3": {} } } });
    // Idempotent: a no-op update changes nothing.
    const before = live.managedFields;
    live.update(live.object as KubeObject, "no-op");
    expect(live.managedFields).toEqual(before);
  });
});

describe("FieldManager.apply", () => {
  it("creates an object and owns exactly what it applied (TestApplyNewObject, TestApplyDoesNotStripLabels)", () => {
    const live = new Live(configMapsResource);
    const created = live.apply(cm({ labels: { app: "nginx" } }, { a: "1" }), "applier");
    expect(created).toMatchObject({ metadata: { name: "cm", labels: { app: "nginx" } }, data: { a: "1" } });
    expect(live.managedFields).toEqual([
      {
        manager: "applier",
        operation: "Apply",
        apiVersion: "v1",
        time: "2026-01-01T00:00:00Z",
        fieldsType: "FieldsV1",
        fieldsV1: { "f:data": { "f:a": {} }, "f:metadata": { "f:labels": { "f:app": {} } } },
      },
    ]);
  });

  it("creates no top-level struct the configuration leaves out (a ClusterRole applied without aggregationRule has none)", () => {
    const live = new Live(clusterRolesResource);
    const rules = [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }];
    const created = live.apply(
      { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: "reader" }, rules },
      "applier",
    );
    expect(created).not.toHaveProperty("aggregationRule");
    expect(created.rules).toEqual(rules);
    const lease = new Live(leasesResource).apply(
      { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "l" } },
      "applier",
    );
    expect(lease).not.toHaveProperty("spec");
    const withSpec = new Live(leasesResource).apply(
      { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "l" }, spec: {} },
      "applier",
    );
    expect(withSpec.spec).toEqual({});
  });

  it("refuses another version or kind, and managedFields in the configuration (TestVersionCheck, TestApplyFailsWithManagedFields)", () => {
    const live = new Live(configMapsResource);
    expect(() => live.apply({ ...cm({}), apiVersion: "v2" }, "a")).toThrow("invalid object type: /v2, Kind=ConfigMap");
    expect(() => live.apply({ metadata: { name: "cm" } }, "a")).toThrow("invalid object type: /, Kind=");
    expect(() => live.apply({ ...cm({}), apiVersion: "apps/v1", kind: "Deployment" }, "a")).toThrow(
      "invalid object type: apps/v1, Kind=Deployment",
    );
    expect(() => live.apply(cm({ managedFields: [] }), "a")).toThrow("metadata.managedFields must be nil");
    expect(live.apply(cm({}, { a: "1" }), "a").data).toEqual({ a: "1" }); // TestApplySuccessWithNoManagedFields
  });

  it("conflicts with an updater's change and takes it over when forced (TestUpdateApplyConflict)", () => {
    const live = new Live(configMapsResource);
    live.apply(cm({}, { replicas: "3" }), "apply-manager");
    live.update(cm({}, { replicas: "101" }), "update-manager");
    const conflict = conflictOf(() => live.apply(cm({}, { replicas: "4" }), "apply-manager"));
    expect(conflict.message).toBe('Apply failed with 1 conflict: conflict with "update-manager" using v1: .data.replicas');
    expect(conflict.causes).toEqual([
      { reason: "FieldManagerConflict", message: 'conflict with "update-manager" using v1', field: ".data.replicas" },
    ]);
    expect(live.object?.["data"]).toEqual({ replicas: "101" });
    live.apply(cm({}, { replicas: "4" }), "apply-manager", true);
    expect(live.object?.["data"]).toEqual({ replicas: "4" });
    expect(live.managedFields.map((e) => e.manager)).toEqual(["apply-manager"]);
  });

  it("does not conflict on a value it leaves as is, and then co-owns it with a time of its own (TestCoOwningManagedFields…)", () => {
    const live = new Live(configMapsResource);
    live.apply(cm({}, { key_a: "value", key_b: "value" }), "a");
    live.apply(cm({}, { key_a: "value", key_b: "value" }), "b");
    expect(live.fieldsOf("a")).toEqual(live.fieldsOf("b"));
    expect(live.managedFields.map((e) => e.time)).toEqual(["2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z"]);
  });

  it("keeps times on a no-op apply and leaves other managers' times when taking fields (TestNoOpChanges, TestTakingOver…)", () => {
    const live = new Live(configMapsResource);
    live.apply(cm({}, { key_a: "value", key_b: "value" }), "a");
    const before = structuredClone(live.object);
    live.apply(cm({}, { key_a: "value", key_b: "value" }), "a");
    expect(live.object).toEqual(before);
    live.apply(cm({}, { key_b: "new-value" }), "b", true);
    expect(live.managedFields.map((e) => [e.manager, e.time, e.fieldsV1])).toEqual([
      ["a", "2026-01-01T00:00:00Z", { "f:data": { "f:key_a": {} } }],
      ["b", "2026-01-01T00:00:02Z", { "f:data": { "f:key_b": {} } }],
    ]);
  });

  it("tracks an untracked object from its first apply under before-first-apply (TestUpdateBeforeFirstApply)", () => {
    const live = new Live(configMapsResource);
    live.update(cm({ labels: { app: "my-nginx" } }), "creator");
    live.update({ ...(live.object as KubeObject), metadata: { ...live.object?.metadata, managedFields: [] } }, "resetter");
    live.update(cm({ labels: { app: "my-nginx" } }, { extra: "1" }), "fieldmanager_test_update");
    expect(live.managedFields).toEqual([]); // TestNoUpdateBeforeFirstApply: updates alone are not tracked

    const config = cm({ labels: { app: "nginx" } });
    const conflict = conflictOf(() => live.apply(config, "fieldmanager_test_apply"));
    expect(conflict.causes).toEqual([
      { reason: "FieldManagerConflict", message: `conflict with "${BEFORE_FIRST_APPLY}" using v1`, field: ".metadata.labels.app" },
    ]);
    live.apply(config, "fieldmanager_test_apply", true);
    expect(live.managedFields.map((e) => [e.manager, e.fieldsV1])).toEqual([
      ["fieldmanager_test_apply", { "f:metadata": { "f:labels": { "f:app": {} } } }],
      [BEFORE_FIRST_APPLY, { "f:data": { ".": {}, "f:extra": {} }, "f:metadata": { "f:labels": {} } }],
    ]);
  });

  it("keeps kubectl's client-side apply annotation in step with what kubectl applies (lastappliedupdater_test)", () => {
    const LAST = "kubectl.kubernetes.io/last-applied-configuration";
    const live = new Live(configMapsResource);
    live.update(cm({ annotations: { [LAST]: '{"old":true}\n' } }, { a: "1" }), "kubectl-client-side-apply");
    live.apply(cm({}, { a: "<2>" }), "other", true);
    expect(live.object?.metadata?.annotations?.[LAST]).toBe('{"old":true}\n');
    live.apply(cm({}, { a: "<2>" }), "kubectl", true);
    expect(live.object?.metadata?.annotations?.[LAST]).toBe(
      '{"apiVersion":"v1","data":{"a":"\\u003c2\\u003e"},"kind":"ConfigMap","metadata":{"name":"cm","namespace":"default"}}\n',
    );
    const fresh = new Live(configMapsResource);
    fresh.apply(cm({}, { a: "1" }), "kubectl");
    expect(fresh.object?.metadata?.annotations).toBeUndefined();
  });

  describe("granular maps (configmap data, secret data, labels)", () => {
    it("merges keys between appliers and removes only the keys an applier dropped", () => {
      const live = new Live(configMapsResource);
      live.apply(cm({ labels: { a: "1" } }, { a: "1", b: "2" }), "one");
      live.apply(cm({ labels: { b: "2" } }, { c: "3" }), "two");
      expect(live.object?.["data"]).toEqual({ a: "1", b: "2", c: "3" });
      live.apply(cm({}, { a: "1" }), "one");
      expect(live.object?.["data"]).toEqual({ a: "1", c: "3" });
      expect(live.object?.metadata?.labels).toEqual({ b: "2" });
      live.apply(cm({}), "one");
      live.apply(cm({}), "two");
      expect(live.object?.["data"]).toBeUndefined();
      expect(live.object?.metadata?.labels).toBeUndefined();
    });

    it("owns secret data per key", () => {
      const live = new Live(secretsResource);
      const secret = (data: Record<string, string>): KubeObject => ({
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "s" },
        type: "Opaque",
        data,
      });
      live.apply(secret({ user: "dXNlcg==" }), "a");
      live.update({ ...(live.object as KubeObject), data: { user: "dXNlcg==", pass: "cGFzcw==" } }, "b");
      expect(live.fieldsOf("b", "Update")).toEqual({ "f:data": { "f:pass": {} } });
      live.apply(secret({}), "a");
      expect(live.object?.["data"]).toEqual({ pass: "cGFzcw==" });
    });
  });

  describe("sets (metadata.finalizers, x-kubernetes-list-type: set)", () => {
    it("removes a finalizer its applier drops while an updater's finalizer stays (issue 9)", () => {
      const live = new Live(configMapsResource);
      live.apply(cm({ finalizers: ["a.io/x"] }), "a");
      live.update({ ...(live.object as KubeObject), metadata: { ...live.object?.metadata, finalizers: ["a.io/x", "b.io/y"] } }, "b");
      expect(live.fieldsOf("b", "Update")).toEqual({ "f:metadata": { "f:finalizers": { 'v:"b.io/y"': {} } } });
      live.apply(cm({}), "a");
      expect(live.object?.metadata?.finalizers).toEqual(["b.io/y"]);
      expect(live.managedFields.map((e) => e.manager)).toEqual(["b"]);
    });

    it("keeps a value another applier also owns, and merges new values after the live ones", () => {
      const live = new Live(configMapsResource);
      live.apply(cm({ finalizers: ["x", "y"] }), "a");
      live.apply(cm({ finalizers: ["y", "z"] }), "b");
      expect(live.object?.metadata?.finalizers).toEqual(["x", "y", "z"]);
      live.apply(cm({ finalizers: ["x"] }), "a");
      expect(live.object?.metadata?.finalizers).toEqual(["x", "y", "z"]);
      live.apply(cm({}), "b");
      expect(live.object?.metadata?.finalizers).toEqual(["x"]);
    });
  });

  describe("associative lists (metadata.ownerReferences, keyed by uid, atomic items)", () => {
    const ref = (uid: string, name: string, controller?: boolean) => ({
      apiVersion: "v1",
      kind: "ConfigMap",
      name,
      uid,
      ...(controller === undefined ? {} : { controller }),
    });

    it("owns each reference whole and removes the ones an applier drops", () => {
      const live = new Live(configMapsResource);
      live.apply(cm({ ownerReferences: [ref("1", "one", true)] }), "a");
      expect(live.fieldsOf("a")).toEqual({ "f:metadata": { "f:ownerReferences": { 'k:{"uid":"1"}': {} } } });
      live.apply(cm({ ownerReferences: [ref("2", "two")] }), "b");
      expect(live.object?.metadata?.ownerReferences?.map((r) => r.uid)).toEqual(["1", "2"]);
      live.apply(cm({}), "a");
      expect(live.object?.metadata?.ownerReferences).toEqual([ref("2", "two")]);
    });

    it("conflicts on a reference another manager set, naming it by key", () => {
      const live = new Live(configMapsResource);
      live.apply(cm({ ownerReferences: [ref("1", "one")] }), "a");
      const conflict = conflictOf(() => live.apply(cm({ ownerReferences: [ref("1", "renamed")] }), "b"));
      expect(conflict.message).toBe('Apply failed with 1 conflict: conflict with "a": .metadata.ownerReferences[uid="1"]');
      // An atomic item is replaced whole when forced.
      live.apply(cm({ ownerReferences: [{ ...ref("1", "renamed"), blockOwnerDeletion: true }] }), "b", true);
      expect(live.object?.metadata?.ownerReferences).toEqual([{ ...ref("1", "renamed"), blockOwnerDeletion: true }]);
    });
  });

  describe("atomic lists (Namespace spec.finalizers)", () => {
    const ns = (finalizers: string[]): KubeObject => ({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "ns" },
      spec: { finalizers },
    });

    it("owns the list whole, so an updater's addition is a conflict on the list", () => {
      const live = new Live(namespacesResource);
      live.apply(ns(["a"]), "a");
      expect(live.fieldsOf("a")).toEqual({ "f:spec": { "f:finalizers": {} } });
      live.update(ns(["a", "b"]), "b");
      expect(live.managedFields.map((e) => e.manager)).toEqual(["b"]);
      const conflict = conflictOf(() => live.apply(ns(["a"]), "a"));
      expect(conflict.message).toBe('Apply failed with 1 conflict: conflict with "b" using v1: .spec.finalizers');
      live.apply(ns(["c"]), "a", true);
      expect(live.object?.["spec"]).toEqual({ finalizers: ["c"] });
    });
  });

  describe("a custom resource schema (map-lists with granular items, sets, atomic lists and maps, untyped fields)", () => {
    const widgetSchema: JSONSchemaProps = {
      type: "object",
      properties: {
        spec: {
          type: "object",
          properties: {
            ports: {
              type: "array",
              "x-kubernetes-list-type": "map",
              "x-kubernetes-list-map-keys": ["name"],
              items: { type: "object", properties: { name: { type: "string" }, port: { type: "integer" }, protocol: { type: "string" } } },
            },
            tags: { type: "array", "x-kubernetes-list-type": "set", items: { type: "string" } },
            args: { type: "array", items: { type: "string" } },
            selector: { type: "object", "x-kubernetes-map-type": "atomic", additionalProperties: { type: "string" } },
            extra: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
            listOfLists: {
              type: "array",
              "x-kubernetes-list-type": "map",
              "x-kubernetes-list-map-keys": ["name"],
              items: {
                type: "object",
                properties: {
                  name: { type: "string" },
                  value: { type: "array", "x-kubernetes-list-type": "set", items: { type: "string" } },
                },
              },
            },
            struct: { type: "object", properties: { name: { type: "string" }, value: { type: "integer" } } },
          },
        },
      },
    };
    const widgets = { group: "example.com", version: "v1", kind: "Widget", schema: widgetSchema } as ResourceDefinition;
    const widget = (spec: Record<string, unknown>): KubeObject => ({
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w" },
      spec,
    });

    it("merges map-list items between managers, owning their fields, and removes the items an applier drops", () => {
      const live = new Live(widgets);
      live.apply(
        widget({
          ports: [
            { name: "a", port: 1 },
            { name: "b", port: 2 },
          ],
          tags: ["x"],
        }),
        "a",
      );
      expect(live.fieldsOf("a")).toEqual({
        "f:spec": {
          "f:ports": {
            'k:{"name":"a"}': { ".": {}, "f:name": {}, "f:port": {} },
            'k:{"name":"b"}': { ".": {}, "f:name": {}, "f:port": {} },
          },
          "f:tags": { 'v:"x"': {} },
        },
      });
      live.apply(widget({ ports: [{ name: "c", port: 3 }], tags: ["y"] }), "b");
      expect(live.object?.["spec"]).toEqual({
        ports: [
          { name: "a", port: 1 },
          { name: "b", port: 2 },
          { name: "c", port: 3 },
        ],
        tags: ["x", "y"],
      });
      live.apply(widget({ ports: [{ name: "a", port: 1 }], tags: ["x"] }), "a");
      expect(live.object?.["spec"]).toEqual({
        ports: [
          { name: "a", port: 1 },
          { name: "c", port: 3 },
        ],
        tags: ["x", "y"],
      });
    });

    it("removes an item its applier drops even when an updater added to it (SMD remove_one_with_dangling_subitem_keep_one)", () => {
      const live = new Live(widgets);
      live.apply(widget({ listOfLists: [{ name: "a" }, { name: "b", value: ["c"] }] }), "apply-one");
      live.apply(widget({ listOfLists: [{ name: "a", value: ["b"] }] }), "apply-two");
      live.update(
        widget({
          listOfLists: [
            { name: "a", value: ["b"] },
            { name: "b", value: ["c", "d"] },
          ],
        }),
        "controller",
      );
      live.apply(widget({ listOfLists: [{ name: "a" }] }), "apply-one");
      expect(live.object?.["spec"]).toEqual({ listOfLists: [{ name: "a", value: ["b"] }] });
      expect(Object.fromEntries(live.managedFields.map((e) => [e.manager, e.fieldsV1]))).toEqual({
        "apply-one": { "f:spec": { "f:listOfLists": { 'k:{"name":"a"}': { ".": {}, "f:name": {} } } } },
        "apply-two": { "f:spec": { "f:listOfLists": { 'k:{"name":"a"}': { ".": {}, "f:name": {}, "f:value": { 'v:"b"': {} } } } } },
      });
    });

    it.each([
      // SMD nested_test: struct_apply_remove_all, struct_apply_remove_dangling, struct_apply_update_remove_all,
      // struct_apply_update_dict_dangling, struct_apply_update_dict_null, struct_apply_update_took_over.
      { name: "remove_all", update: undefined, last: undefined, object: {}, owned: undefined },
      { name: "remove_dangling", update: undefined, last: { struct: null }, object: {}, owned: { "f:spec": { "f:struct": {} } } },
      { name: "update_remove_all", update: { name: "a", value: 1 }, last: undefined, object: { struct: { value: 1 } }, owned: undefined },
      {
        name: "update_dict_dangling",
        update: { name: "a", value: 1 },
        last: { struct: {} },
        object: { struct: { value: 1 } },
        owned: { "f:spec": { "f:struct": {} } },
      },
      {
        name: "update_dict_null",
        update: { name: "a", value: 1 },
        last: { struct: null },
        object: { struct: { value: 1 } },
        owned: { "f:spec": { "f:struct": {} } },
      },
      {
        name: "update_took_over",
        update: { name: "b", value: 1 },
        last: { struct: null },
        object: { struct: { name: "b", value: 1 } },
        owned: { "f:spec": { "f:struct": {} } },
      },
    ])("prunes structs like SMD struct_apply_$name", ({ update, last, object, owned }) => {
      const live = new Live(widgets);
      live.apply(widget({ struct: update === undefined ? { name: "a", value: 1 } : { name: "a" } }), "default");
      if (update !== undefined) live.update(widget({ struct: update }), "controller");
      // An applied configuration without spec (`last` undefined) is SMD's empty object.
      live.apply(last === undefined ? { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" } } : widget(last), "default");
      expect(live.object?.["spec"] ?? {}).toEqual(object);
      expect(live.fieldsOf("default")).toEqual(owned);
    });

    it("conflicts on another manager's item field and replaces atomic lists and maps whole", () => {
      const live = new Live(widgets);
      live.apply(widget({ ports: [{ name: "a", port: 1 }], args: ["1", "2"], selector: { app: "x", tier: "y" } }), "a");
      const conflict = conflictOf(() => live.apply(widget({ ports: [{ name: "a", port: 9 }], args: ["3"], selector: { app: "z" } }), "b"));
      expect(conflict.message).toBe(
        'Apply failed with 3 conflicts: conflicts with "a":\n- .spec.args\n- .spec.ports[name="a"].port\n- .spec.selector',
      );
      live.apply(widget({ ports: [{ name: "a", port: 1 }], args: ["3"], selector: { app: "x" } }), "a");
      expect(live.object?.["spec"]).toEqual({ ports: [{ name: "a", port: 1 }], args: ["3"], selector: { app: "x" } });
      expect(live.fieldsOf("a")).toEqual({
        "f:spec": { "f:args": {}, "f:selector": {}, "f:ports": { 'k:{"name":"a"}': { ".": {}, "f:name": {}, "f:port": {} } } },
      });
    });

    it("owns untyped fields key by key, with lists in them atomic", () => {
      const live = new Live(widgets);
      live.apply(widget({ extra: { a: { b: 1 }, list: [1, 2] } }), "a");
      expect(live.fieldsOf("a")).toEqual({ "f:spec": { "f:extra": { "f:a": { ".": {}, "f:b": {} }, "f:list": {} } } });
      live.apply(widget({ extra: { list: [3] } }), "a");
      expect(live.object?.["spec"]).toEqual({ extra: { list: [3] } });
    });
  });
});
