/**
 * Ports, with upstream's objects and assertions, of kubernetes/kubernetes:
 * - test/e2e/storage/storageclass.go (conformance): "[sig-storage] StorageClasses CSI Conformance
 *   should run through the lifecycle of a StorageClass"
 * - test/e2e/storage/persistent_volumes.go (conformance): "[sig-storage] PersistentVolumes CSI
 *   Conformance should run through the lifecycle of a PV and a PVC" and "should apply changes to a
 *   pv/pvc status"
 * and the binder's behaviour users rely on (a claim binds to a matching volume, or a class's
 * provisioner makes one; reclaim policies; the scheduler holding pods whose claims are unbound).
 */
import type { KubeObject } from "@kubekit/generic-controlplane";
import { describe, expect, it } from "vitest";
import type { PersistentVolume, PersistentVolumeClaim } from "../src/resources/persistent-volumes.js";
import type { Pod } from "../src/resources/pods.js";
import type { StorageClass } from "../src/resources/storage-classes.js";
import { PERSISTENT_VOLUME_CLAIMS, PERSISTENT_VOLUMES, PODS, STORAGE_CLASSES } from "../src/refs.js";
import { eventually } from "./kubectl.js";
import { useSimCluster } from "./fixture.js";

const sim = useSimCluster({ nodes: 1 });

const rv = (object: KubeObject) => BigInt(object.metadata?.resourceVersion ?? "0");

async function gone(what: string, list: () => Promise<{ items: unknown[] }>): Promise<void> {
  await eventually(what, async () => ((await list()).items.length === 0 ? true : undefined));
}

/** retry.RetryOnConflict: the binder writes the same objects. */
async function retrying<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (attempt > 10) throw error;
    }
  }
}

/** e2epv.CreatePVsPVCs with one of each: a 2Gi ReadWriteOnce CSI volume of class `ns` labelled for the pool, and a claim of that class. */
async function createPVAndPVC(
  ns: string,
  volLabel: Record<string, string>,
  driver: string,
  handle: string,
): Promise<{ pv: PersistentVolume; pvc: PersistentVolumeClaim }> {
  const pv = await sim.client.create<PersistentVolume>(PERSISTENT_VOLUMES, undefined, {
    metadata: { generateName: `${ns}-`, labels: { ...volLabel }, annotations: { "volume.beta.kubernetes.io/gid": "777" } },
    spec: {
      persistentVolumeReclaimPolicy: "Retain",
      capacity: { storage: "2Gi" },
      accessModes: ["ReadWriteOnce"],
      storageClassName: ns,
      csi: { driver, volumeHandle: handle },
    },
  });
  const pvc = await sim.client.create<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS, ns, {
    metadata: { generateName: "pvc-", namespace: ns },
    spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "2Gi" } }, storageClassName: ns },
  });
  return { pv, pvc };
}

describe("[sig-storage] StorageClasses CSI Conformance (test/e2e/storage/storageclass.go)", { timeout: 60_000 }, () => {
  it("should run through the lifecycle of a StorageClass", async () => {
    const created = await sim.client.create<StorageClass>(STORAGE_CLASSES, undefined, {
      kind: "StorageClass",
      metadata: { generateName: "e2e-" },
      provisioner: "e2e-fake-provisioner",
    });
    expect(rv(created)).toBeGreaterThan(0n);
    const retrieved = await sim.client.get<StorageClass>(STORAGE_CLASSES, undefined, created.metadata!.name!);
    const name = retrieved.metadata!.name!;
    const patched = await sim.client.patch<StorageClass>(
      STORAGE_CLASSES,
      undefined,
      name,
      { metadata: { labels: { [name]: "patched" } } },
      "application/strategic-merge-patch+json",
    );
    expect(patched.metadata?.labels?.[name], "checking that patched label has been applied").toBe("patched");
    expect(rv(patched), "patched object should have a larger resource version").toBeGreaterThan(rv(retrieved));
    await sim.client.delete(STORAGE_CLASSES, undefined, name);
    await gone(`StorageClass ${name} deleted`, () => sim.client.list(STORAGE_CLASSES, undefined, { labelSelector: `${name}=patched` }));

    // Create a replacement StorageClass
    const replacement = await sim.client.create<StorageClass>(STORAGE_CLASSES, undefined, {
      kind: "StorageClass",
      metadata: { generateName: "e2e-v2-" },
      provisioner: "e2e-fake-provisioner",
    });
    const replacementName = replacement.metadata!.name!;
    const current = await sim.client.get<StorageClass>(STORAGE_CLASSES, undefined, replacementName);
    current.metadata!.labels = { [replacementName]: "updated" };
    const updated = await sim.client.update<StorageClass>(STORAGE_CLASSES, undefined, current);
    expect(updated.metadata?.labels?.[replacementName], "checking that updated label has been applied").toBe("updated");
    const selector = `${replacementName}=updated`;
    expect((await sim.client.list(STORAGE_CLASSES, undefined, { labelSelector: selector })).items).toHaveLength(1);
    await sim.client.deleteCollection(STORAGE_CLASSES, undefined, {}, { labelSelector: selector });
    await gone(`StorageClass ${replacementName} deleted`, () => sim.client.list(STORAGE_CLASSES, undefined, { labelSelector: selector }));
  });
});

describe("[sig-storage] PersistentVolumes CSI Conformance (test/e2e/storage/persistent_volumes.go)", { timeout: 60_000 }, () => {
  it("should run through the lifecycle of a PV and a PVC", async () => {
    const ns = await sim.newNamespace("pv");
    const volLabel = { "e2e-pv-pool": ns };
    const poolSelector = `e2e-pv-pool=${ns}`;
    await createPVAndPVC(ns, volLabel, `inline-driver-${ns}`, "e2e-conformance");
    const pvList = await sim.client.list<PersistentVolume>(PERSISTENT_VOLUMES, undefined, { labelSelector: poolSelector });
    expect(pvList.items).toHaveLength(1);
    const initialPV = pvList.items[0]!;
    expect(rv(initialPV)).toBeGreaterThan(0n);
    const pvcList = await sim.client.list<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS, ns);
    expect(pvcList.items).toHaveLength(1);
    const initialPVC = pvcList.items[0]!;

    const pvName = initialPV.metadata!.name!;
    const patchedPV = await sim.client.patch<PersistentVolume>(
      PERSISTENT_VOLUMES,
      undefined,
      pvName,
      { metadata: { labels: { [pvName]: "patched" } } },
      "application/strategic-merge-patch+json",
    );
    expect(patchedPV.metadata?.labels?.[pvName]).toBe("patched");
    expect(rv(patchedPV)).toBeGreaterThan(rv(initialPV));
    const pvcName = initialPVC.metadata!.name!;
    const patchedPVC = await sim.client.patch<PersistentVolumeClaim>(
      PERSISTENT_VOLUME_CLAIMS,
      ns,
      pvcName,
      { metadata: { labels: { [pvcName]: "patched" } } },
      "application/strategic-merge-patch+json",
    );
    expect(patchedPVC.metadata?.labels?.[pvcName]).toBe("patched");
    expect(rv(patchedPVC)).toBeGreaterThan(rv(initialPVC));
    expect((await sim.client.get(PERSISTENT_VOLUMES, undefined, pvName)).metadata?.uid).toBe(patchedPV.metadata?.uid);
    expect((await sim.client.get(PERSISTENT_VOLUME_CLAIMS, ns, pvcName)).metadata?.uid).toBe(patchedPVC.metadata?.uid);

    await sim.client.delete(PERSISTENT_VOLUME_CLAIMS, ns, pvcName);
    await gone(`PVC ${pvcName} deleted`, () => sim.client.list(PERSISTENT_VOLUME_CLAIMS, ns));
    await sim.client.delete(PERSISTENT_VOLUMES, undefined, pvName);
    await gone(`PV ${pvName} deleted`, () => sim.client.list(PERSISTENT_VOLUMES, undefined, { labelSelector: poolSelector }));

    // Recreating another PV & PVC
    const { pv, pvc } = await createPVAndPVC(ns, volLabel, `inline-driver-${ns}`, "e2e-conformance");
    const name2 = pv.metadata!.name!;
    const updatedPV = await retrying(async () => {
      const pvToUpdate = await sim.client.get<PersistentVolume>(PERSISTENT_VOLUMES, undefined, name2);
      pvToUpdate.metadata!.labels![name2] = "updated";
      return sim.client.update<PersistentVolume>(PERSISTENT_VOLUMES, undefined, pvToUpdate);
    });
    expect(updatedPV.metadata?.labels?.[name2]).toBe("updated");
    const claimName = pvc.metadata!.name!;
    const updatedPVC = await retrying(async () => {
      const pvcToUpdate = await sim.client.get<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS, ns, claimName);
      pvcToUpdate.metadata!.labels = { [claimName]: "updated" };
      return sim.client.update<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS, ns, pvcToUpdate);
    });
    expect(updatedPVC.metadata?.labels?.[claimName]).toBe("updated");
    const pvcSelector = `${claimName}=updated`;
    expect((await sim.client.list(PERSISTENT_VOLUME_CLAIMS, "", { labelSelector: pvcSelector })).items).toHaveLength(1);
    await sim.client.deleteCollection(PERSISTENT_VOLUME_CLAIMS, ns, {}, { labelSelector: pvcSelector });
    await gone(`PVC ${claimName} deleted`, () => sim.client.list(PERSISTENT_VOLUME_CLAIMS, ns, { labelSelector: pvcSelector }));
    const pvSelector = `${name2}=updated`;
    await sim.client.deleteCollection(PERSISTENT_VOLUMES, undefined, {}, { labelSelector: pvSelector });
    await gone(`PV ${name2} deleted`, () => sim.client.list(PERSISTENT_VOLUMES, undefined, { labelSelector: pvSelector }));
  });

  it("should apply changes to a pv/pvc status", async () => {
    const ns = await sim.newNamespace("pv-status");
    const volLabel = { "e2e-pv-pool": ns };
    await createPVAndPVC(ns, volLabel, `e2e-driver-${ns}`, "e2e-status-conformance");
    const initialPV = (await sim.client.list<PersistentVolume>(PERSISTENT_VOLUMES, undefined, { labelSelector: `e2e-pv-pool=${ns}` }))
      .items[0]!;
    const initialPVC = (await sim.client.list<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS, ns)).items[0]!;
    const pvcName = initialPVC.metadata!.name!;
    const pvName = initialPV.metadata!.name!;

    const pvcStatus = (await sim.client.request(
      "GET",
      `/api/v1/namespaces/${ns}/persistentvolumeclaims/${pvcName}/status`,
    )) as PersistentVolumeClaim;
    expect(["Pending", "Bound"]).toContain(pvcStatus.status?.phase);
    const pvStatus = (await sim.client.request("GET", `/api/v1/persistentvolumes/${pvName}/status`)) as PersistentVolume;
    expect(["Available", "Bound", "Pending"]).toContain(pvStatus.status?.phase);

    type Condition = { type?: string; reason?: string; message?: string };
    const patchedPVC = await sim.client.patch<PersistentVolumeClaim>(
      PERSISTENT_VOLUME_CLAIMS,
      ns,
      pvcName,
      { status: { conditions: [{ type: "StatusPatched", status: "True", reason: "E2E patchedStatus", message: "Set from e2e test" }] } },
      "application/merge-patch+json",
      "status",
    );
    expect((patchedPVC.status?.conditions as Condition[]).find((c) => c.type === "StatusPatched")).toMatchObject({
      reason: "E2E patchedStatus",
      message: "Set from e2e test",
    });
    const patchedPV = await sim.client.patch<PersistentVolume>(
      PERSISTENT_VOLUMES,
      undefined,
      pvName,
      { status: { message: "StatusPatched", reason: "E2E patchStatus" } },
      "application/merge-patch+json",
      "status",
    );
    expect(patchedPV.status?.reason).toBe("E2E patchStatus");
    expect(patchedPV.status?.message).toBe("StatusPatched");

    const updatedPVC = await retrying(async () => {
      const toUpdate = await sim.client.get<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS, ns, pvcName);
      toUpdate.status = {
        ...(toUpdate.status ?? {}),
        conditions: [
          ...(toUpdate.status?.conditions ?? []),
          { type: "StatusUpdated", status: "True", reason: "E2E updateStatus", message: "Set from e2e test" },
        ],
      };
      return sim.client.update<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS, ns, toUpdate, "status");
    });
    expect((updatedPVC.status?.conditions as Condition[]).find((c) => c.type === "StatusUpdated")).toMatchObject({
      reason: "E2E updateStatus",
      message: "Set from e2e test",
    });
    const updatedPV = await retrying(async () => {
      const toUpdate = await sim.client.get<PersistentVolume>(PERSISTENT_VOLUMES, undefined, pvName);
      toUpdate.status = { ...(toUpdate.status ?? {}), reason: "E2E updateStatus", message: "StatusUpdated" };
      return sim.client.update<PersistentVolume>(PERSISTENT_VOLUMES, undefined, toUpdate, "status");
    });
    expect(updatedPV.status?.reason).toBe("E2E updateStatus");
    expect(updatedPV.status?.message).toBe("StatusUpdated");
  });
});

describe("the PersistentVolume binder", { timeout: 60_000 }, () => {
  const claimOf = (name: string, spec: PersistentVolumeClaim["spec"] = {}) => ({
    metadata: { name },
    spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } }, ...spec },
  });
  const bound = (ns: string, name: string) =>
    eventually(`claim ${name} bound`, async () => {
      const claim = await sim.client.get<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS, ns, name);
      return claim.status?.phase === "Bound" ? claim : undefined;
    });

  it("binds a claim to the smallest matching volume, and releases a Retain volume when the claim goes", async () => {
    const ns = await sim.newNamespace("bind");
    for (const [name, storage] of [
      [`${ns}-big`, "10Gi"],
      [`${ns}-small`, "2Gi"],
    ] as const) {
      await sim.client.create(PERSISTENT_VOLUMES, undefined, {
        metadata: { name },
        spec: { capacity: { storage }, accessModes: ["ReadWriteOnce"], storageClassName: ns, hostPath: { path: `/tmp/${name}` } },
      });
    }
    // Both seen by the binder (Available) before a claim can choose between them.
    for (const name of [`${ns}-big`, `${ns}-small`])
      await eventually(`${name} Available`, async () =>
        (await sim.client.get<PersistentVolume>(PERSISTENT_VOLUMES, undefined, name)).status?.phase === "Available" ? true : undefined,
      );
    await sim.client.create(PERSISTENT_VOLUME_CLAIMS, ns, claimOf("data", { storageClassName: ns }));
    const claim = await bound(ns, "data");
    expect(claim.spec?.volumeName).toBe(`${ns}-small`);
    expect(claim.status).toMatchObject({ accessModes: ["ReadWriteOnce"], capacity: { storage: "2Gi" } });
    const pv = await sim.client.get<PersistentVolume>(PERSISTENT_VOLUMES, undefined, `${ns}-small`);
    expect(pv.status?.phase).toBe("Bound");
    expect(pv.spec?.claimRef).toMatchObject({ namespace: ns, name: "data", uid: claim.metadata?.uid });
    expect((await sim.client.get<PersistentVolume>(PERSISTENT_VOLUMES, undefined, `${ns}-big`)).status?.phase).toBe("Available");
    await sim.client.delete(PERSISTENT_VOLUME_CLAIMS, ns, "data");
    await eventually("the volume Released", async () =>
      (await sim.client.get<PersistentVolume>(PERSISTENT_VOLUMES, undefined, `${ns}-small`)).status?.phase === "Released"
        ? true
        : undefined,
    );
  });

  it("provisions from the default class, and a Delete volume goes with its claim", async () => {
    const ns = await sim.newNamespace("provision");
    await sim.client.create(STORAGE_CLASSES, undefined, {
      metadata: { name: `${ns}-default`, annotations: { "storageclass.kubernetes.io/is-default-class": "true" } },
      provisioner: "example.com/sim",
    });
    try {
      await sim.client.create(PERSISTENT_VOLUME_CLAIMS, ns, claimOf("data"));
      const claim = await bound(ns, "data");
      expect(claim.spec?.storageClassName).toBe(`${ns}-default`);
      expect(claim.spec?.volumeName).toBe(`pvc-${claim.metadata?.uid}`);
      expect(claim.metadata?.annotations?.["volume.kubernetes.io/storage-provisioner"]).toBe("example.com/sim");
      const pv = await sim.client.get<PersistentVolume>(PERSISTENT_VOLUMES, undefined, claim.spec!.volumeName!);
      expect(pv.metadata?.annotations?.["pv.kubernetes.io/provisioned-by"]).toBe("example.com/sim");
      expect(pv.spec).toMatchObject({
        persistentVolumeReclaimPolicy: "Delete",
        storageClassName: `${ns}-default`,
        capacity: { storage: "1Gi" },
      });
      await sim.client.delete(PERSISTENT_VOLUME_CLAIMS, ns, "data");
      await eventually("the provisioned volume deleted", async () =>
        (await sim.client.list(PERSISTENT_VOLUMES, undefined)).items.some((v) => v.metadata?.name === pv.metadata?.name) ? undefined : true,
      );
    } finally {
      await sim.client.delete(STORAGE_CLASSES, undefined, `${ns}-default`);
    }
  });

  it("holds a pod whose claim is unbound, and under WaitForFirstConsumer provisions once the pod is scheduled", async () => {
    const ns = await sim.newNamespace("wffc");
    const pod = (name: string, claim: string) => ({
      metadata: { name },
      spec: { containers: [{ name: "c", image: "x" }], volumes: [{ name: "d", persistentVolumeClaim: { claimName: claim } }] },
    });
    await sim.client.create(PERSISTENT_VOLUME_CLAIMS, ns, claimOf("nowhere", { storageClassName: "missing" }));
    await sim.client.create(PODS, ns, pod("held", "nowhere"));
    const held = await eventually("the pod unschedulable", async () => {
      const p = await sim.client.get<Pod>(PODS, ns, "held");
      return p.status?.conditions?.find((c) => c.type === "PodScheduled" && c.status === "False");
    });
    expect(held.message).toBe("0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims.");

    await sim.client.create(STORAGE_CLASSES, undefined, {
      metadata: { name: `${ns}-local` },
      provisioner: "example.com/local",
      volumeBindingMode: "WaitForFirstConsumer",
    });
    try {
      await sim.client.create(PERSISTENT_VOLUME_CLAIMS, ns, claimOf("later", { storageClassName: `${ns}-local` }));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await sim.client.get<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS, ns, "later")).status?.phase, "no consumer yet").toBe(
        "Pending",
      );
      await sim.client.create(PODS, ns, pod("consumer", "later"));
      await bound(ns, "later");
      await eventually("the consumer running", async () =>
        (await sim.client.get<Pod>(PODS, ns, "consumer")).status?.phase === "Running" ? true : undefined,
      );
    } finally {
      await sim.client.delete(STORAGE_CLASSES, undefined, `${ns}-local`);
    }
  });
});
