import { isControlPlaneError } from "@kubekit/generic-controlplane";
import { createResourceStore, toTable, type ResourceDefinition, type ResourceStore } from "@kubekit/generic-controlplane/registry";
import { createMemoryStorage } from "@kubekit/generic-controlplane/storage";
import { afterEach, describe, expect, it } from "vitest";
import { persistentVolumeClaimsResource } from "./persistent-volume-claims.js";
import { persistentVolumesResource, type PersistentVolume, type PersistentVolumeClaim } from "./persistent-volumes.js";
import { statefulSetsResource, type StatefulSet } from "./statefulsets.js";
import { storageClassesResource, type StorageClass } from "./storage-classes.js";

const storages: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(storages.splice(0).map((s) => s.close()));
});

function storeFor(definition: ResourceDefinition): ResourceStore {
  const storage = createMemoryStorage({ compactInterval: 0 });
  storages.push(storage);
  return createResourceStore(definition, storage);
}

async function rejection(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (isControlPlaneError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("expected the write to be refused");
}

const sts = (spec: Record<string, unknown> = {}) => ({
  metadata: { name: "web" },
  spec: {
    serviceName: "web",
    selector: { matchLabels: { app: "a" } },
    template: { metadata: { labels: { app: "a" } }, spec: { containers: [{ name: "c", image: "x" }] } },
    ...spec,
  },
});

// After pkg/apis/apps/validation's TestValidateStatefulSet and TestValidateStatefulSetUpdate, and v1's SetDefaults_StatefulSet.
describe("statefulsets", () => {
  it("defaults OrderedReady, RollingUpdate with partition 0, Retain claims and ten revisions", async () => {
    const created = (await storeFor(statefulSetsResource).create("default", sts())) as StatefulSet;
    expect(created.spec?.podManagementPolicy).toBe("OrderedReady");
    expect(created.spec?.updateStrategy).toEqual({ type: "RollingUpdate", rollingUpdate: { partition: 0 } });
    expect(created.spec?.persistentVolumeClaimRetentionPolicy).toEqual({ whenDeleted: "Retain", whenScaled: "Retain" });
    expect(created.spec?.revisionHistoryLimit).toBe(10);
    expect(created.spec?.replicas).toBe(1);
  });

  it("drops rollingUpdate.maxUnavailable, as 1.32 does with MaxUnavailableStatefulSet off", async () => {
    const created = (await storeFor(statefulSetsResource).create(
      "default",
      sts({ updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 2 } } }),
    )) as StatefulSet;
    expect(created.spec?.updateStrategy?.rollingUpdate).toEqual({ partition: 0 });
  });

  it("refuses bad policies, strategies, ordinals and claim templates with upstream's messages", async () => {
    const store = storeFor(statefulSetsResource);
    expect((await rejection(store.create("default", sts({ podManagementPolicy: "Eager" })))).message).toContain(
      "spec.podManagementPolicy: Invalid value: \"Eager\": must be 'OrderedReady' or 'Parallel'",
    );
    expect(
      (await rejection(store.create("default", sts({ updateStrategy: { type: "OnDelete", rollingUpdate: { partition: 1 } } })))).message,
    ).toContain("spec.updateStrategy.rollingUpdate: Invalid value");
    expect(
      (await rejection(store.create("default", sts({ updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: -1 } } }))))
        .message,
    ).toContain("spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater than or equal to 0");
    expect((await rejection(store.create("default", sts({ ordinals: { start: -1 } })))).message).toContain(
      "spec.ordinals.start: Invalid value: -1",
    );
    expect(
      (await rejection(store.create("default", sts({ persistentVolumeClaimRetentionPolicy: { whenDeleted: "Keep" } })))).message,
    ).toContain('spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: "Keep"');
    const noStorage = await rejection(
      store.create("default", sts({ volumeClaimTemplates: [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"] } }] })),
    );
    expect(noStorage.message).toContain("spec.volumeClaimTemplates[0].spec.resources[storage]: Required value");
    expect((await rejection(store.create("default", sts({ selector: { matchLabels: { app: "b" } } })))).message).toContain(
      "`selector` does not match template `labels`",
    );
  });

  it("lets an update change only replicas, ordinals, template, updateStrategy, revisionHistoryLimit, the retention policy and minReadySeconds", async () => {
    const store = storeFor(statefulSetsResource);
    const created = (await store.create("default", sts())) as StatefulSet;
    const scaled = (await store.update("default", "web", {
      ...created,
      spec: { ...created.spec, replicas: 3, minReadySeconds: 5 },
    })) as StatefulSet;
    expect(scaled.spec?.replicas).toBe(3);
    const refused = await rejection(store.update("default", "web", { ...scaled, spec: { ...scaled.spec, serviceName: "other" } }));
    expect(refused.code).toBe("Invalid");
    expect(refused.message).toContain(
      "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    );
  });

  it("prints READY as ready/desired", async () => {
    const created = (await storeFor(statefulSetsResource).create("default", sts({ replicas: 3 }))) as StatefulSet;
    const table = toTable(statefulSetsResource, [{ ...created, status: { readyReplicas: 2 } }], { wide: true });
    expect(table.columnDefinitions.map((c) => c.name)).toEqual(["Name", "Ready", "Age", "Containers", "Images"]);
    expect(table.rows[0]!.cells.slice(0, 2)).toEqual(["web", "2/3"]);
  });
});

describe("persistentvolumeclaims, persistentvolumes and storageclasses", () => {
  it("start a claim Pending in Filesystem mode and print it as kubectl get pvc does", async () => {
    const claim = (await storeFor(persistentVolumeClaimsResource).create("default", {
      metadata: { name: "data" },
      spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
    })) as PersistentVolumeClaim;
    expect(claim.status?.phase).toBe("Pending");
    expect(claim.spec?.volumeMode).toBe("Filesystem");
    const bound = {
      ...claim,
      spec: { ...claim.spec, volumeName: "pv1", storageClassName: "standard" },
      status: { phase: "Bound", accessModes: ["ReadWriteOnce", "ReadWriteMany"], capacity: { storage: "2Gi" } },
    };
    const table = toTable(persistentVolumeClaimsResource, [bound], { wide: false });
    expect(table.columnDefinitions.map((c) => c.name)).toEqual([
      "Name",
      "Status",
      "Volume",
      "Capacity",
      "Access Modes",
      "StorageClass",
      "VolumeAttributesClass",
      "Age",
    ]);
    expect(table.rows[0]!.cells.slice(0, 7)).toEqual(["data", "Bound", "pv1", "2Gi", "RWO,RWX", "standard", "<unset>"]);
  });

  it("refuse a claim without access modes or a storage request, and a spec change after creation", async () => {
    const store = storeFor(persistentVolumeClaimsResource);
    const refused = await rejection(store.create("default", { metadata: { name: "data" }, spec: {} }));
    expect(refused.message).toContain("spec.accessModes: Required value: at least 1 access mode is required");
    expect(refused.message).toContain("spec.resources[storage]: Required value");
    const claim = (await store.create("default", {
      metadata: { name: "data" },
      spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
    })) as PersistentVolumeClaim;
    const changed = await rejection(store.update("default", "data", { ...claim, spec: { ...claim.spec, accessModes: ["ReadWriteMany"] } }));
    expect(changed.message).toContain(
      "spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims",
    );
    // A binder may fill in the volume name and a class that was unset.
    const bound = (await store.update("default", "data", {
      ...claim,
      spec: { ...claim.spec, volumeName: "pv1", storageClassName: "standard" },
    })) as PersistentVolumeClaim;
    expect(bound.spec?.volumeName).toBe("pv1");
  });

  it("default a volume to Retain and Pending, and refuse one without a volume source", async () => {
    const store = storeFor(persistentVolumesResource);
    const pv = (await store.create(undefined, {
      metadata: { name: "pv1" },
      spec: { capacity: { storage: "5Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/tmp/pv1" } },
    })) as PersistentVolume;
    expect(pv.spec?.persistentVolumeReclaimPolicy).toBe("Retain");
    expect(pv.status?.phase).toBe("Pending");
    const refused = await rejection(
      store.create(undefined, { metadata: { name: "pv2" }, spec: { capacity: { storage: "5Gi" }, accessModes: ["ReadWriteOnce"] } }),
    );
    expect(refused.message).toContain("spec: Required value: must specify a volume type");
  });

  it("default a class to Delete and Immediate, name the default one, and keep its provisioner and parameters", async () => {
    const store = storeFor(storageClassesResource);
    const sc = (await store.create(undefined, {
      metadata: { name: "standard", annotations: { "storageclass.kubernetes.io/is-default-class": "true" } },
      provisioner: "rancher.io/local-path",
    })) as StorageClass;
    expect([sc.reclaimPolicy, sc.volumeBindingMode]).toEqual(["Delete", "Immediate"]);
    expect(toTable(storageClassesResource, [sc], { wide: false }).rows[0]!.cells.slice(0, 5)).toEqual([
      "standard (default)",
      "rancher.io/local-path",
      "Delete",
      "Immediate",
      "false",
    ]);
    const refused = await rejection(store.update(undefined, "standard", { ...sc, provisioner: "other.io/x", parameters: { a: "b" } }));
    expect(refused.message).toContain("provisioner: Forbidden: updates to provisioner are forbidden.");
    expect(refused.message).toContain("parameters: Forbidden: updates to parameters are forbidden.");
    expect((await rejection(store.create(undefined, { metadata: { name: "none" } }))).message).toContain("provisioner: Required value");
  });
});
