/**
 * Ports, with upstream's objects and assertions, of kubernetes/kubernetes:
 * - test/e2e/storage/csi_inline.go (conformance): "CSIInlineVolumes should run through the
 *   lifecycle of a CSIDriver".
 * - test/e2e/storage/volume_attachment.go (conformance): "VolumeAttachment Conformance should run
 *   through the lifecycle of a VolumeAttachment" and "should apply changes to a volumeattachment
 *   status".
 * Plus CSIDriver defaults and immutability, and CSINode validation.
 */
import { KubeClient, type ResourceRef } from "@kubekit/generic-controlplane/controllers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimCluster, type SimCluster } from "../src/index.js";
import type { CSIDriver } from "../src/resources/csi-drivers.js";
import type { CSINode } from "../src/resources/csi-nodes.js";
import type { VolumeAttachment } from "../src/resources/volume-attachments.js";
import { NODES } from "../src/refs.js";

const CSI_DRIVERS: ResourceRef = { group: "storage.k8s.io", version: "v1", resource: "csidrivers", namespaced: false };
const CSI_NODES: ResourceRef = { group: "storage.k8s.io", version: "v1", resource: "csinodes", namespaced: false };
const VOLUME_ATTACHMENTS: ResourceRef = { group: "storage.k8s.io", version: "v1", resource: "volumeattachments", namespaced: false };

let cluster: SimCluster;
let client: KubeClient;

beforeAll(async () => {
  cluster = await startSimCluster({ nodes: 2 });
  client = new KubeClient({ server: cluster.url });
}, 60_000);
afterAll(async () => {
  client.close();
  await cluster.close();
});

const randomSuffix = () => Math.random().toString(36).slice(2, 7);

describe("[sig-storage] CSIInlineVolumes (test/e2e/storage/csi_inline.go)", { timeout: 30_000 }, () => {
  it("should run through the lifecycle of a CSIDriver", async () => {
    const uniqueName = `csiinlinevolumes-${randomSuffix()}`;
    const csiDriverLabel = { "e2e-test": uniqueName };
    const csiDriverLabelSelector = `e2e-test=${uniqueName}`;
    // Driver that supports only Ephemeral, and one that supports both
    const driver1: CSIDriver = {
      metadata: { name: `inline-driver-${crypto.randomUUID()}`, labels: csiDriverLabel },
      spec: { volumeLifecycleModes: ["Ephemeral"], fsGroupPolicy: "ReadWriteOnceWithFSType" },
    };
    const driver2: CSIDriver = {
      metadata: { name: `inline-driver-${crypto.randomUUID()}`, labels: csiDriverLabel },
      spec: { volumeLifecycleModes: ["Persistent", "Ephemeral"], fsGroupPolicy: "ReadWriteOnceWithFSType" },
    };

    // Creating two CSIDrivers
    const createdDriver1 = await client.create<CSIDriver>(CSI_DRIVERS, undefined, driver1);
    const createdDriver2 = await client.create<CSIDriver>(CSI_DRIVERS, undefined, driver2);
    await expect(client.create(CSI_DRIVERS, undefined, driver1)).rejects.toMatchObject({ code: 409 });
    const name1 = createdDriver1.metadata?.name ?? "";
    const name2 = createdDriver2.metadata?.name ?? "";

    // Getting both
    expect((await client.get<CSIDriver>(CSI_DRIVERS, undefined, name1)).metadata?.uid).toBe(createdDriver1.metadata?.uid);
    const retrievedDriver2 = await client.get<CSIDriver>(CSI_DRIVERS, undefined, name2);
    expect(retrievedDriver2.metadata?.uid).toBe(createdDriver2.metadata?.uid);

    // Patching the CSIDriver (strategic merge)
    const patchedCSIDriver = await client.patch<CSIDriver>(
      CSI_DRIVERS,
      undefined,
      name2,
      { metadata: { labels: { [name2]: "patched" } } },
      "application/strategic-merge-patch+json",
    );
    expect(patchedCSIDriver.metadata?.labels?.[name2]).toContain("patched");

    // Updating the CSIDriver
    const csiDriver = await client.get<CSIDriver>(CSI_DRIVERS, undefined, name2);
    csiDriver.metadata!.labels![name2] = "updated";
    const updatedCSIDriver = await client.update<CSIDriver>(CSI_DRIVERS, undefined, csiDriver);
    expect(updatedCSIDriver.metadata?.labels?.[name2]).toContain("updated");

    // Listing all CSIDrivers with the labelSelector
    const driverList = await client.list(CSI_DRIVERS, undefined, { labelSelector: csiDriverLabelSelector });
    expect(driverList.items).toHaveLength(2);

    // Deleting the first, confirming it is gone
    await client.delete(CSI_DRIVERS, undefined, name1);
    await expect(client.get(CSI_DRIVERS, undefined, name1)).rejects.toMatchObject({ code: 404 });

    // Deleting the second via DeleteCollection
    await client.deleteCollection(CSI_DRIVERS, undefined, {}, { labelSelector: `${name2}=updated` });
    await expect(client.get(CSI_DRIVERS, undefined, name2)).rejects.toMatchObject({ code: 404 });
  });

  it("defaults a CSIDriver as a 1.32 kube-apiserver and keeps attachRequired and volumeLifecycleModes immutable", async () => {
    const name = `defaults.csi.example.com`;
    const created = await client.create<CSIDriver>(CSI_DRIVERS, undefined, { metadata: { name } });
    expect(created.spec).toEqual({
      attachRequired: true,
      podInfoOnMount: false,
      volumeLifecycleModes: ["Persistent"],
      storageCapacity: false,
      fsGroupPolicy: "ReadWriteOnceWithFSType",
      requiresRepublish: false,
      seLinuxMount: false,
    });
    created.spec!.attachRequired = false;
    await expect(client.update(CSI_DRIVERS, undefined, created)).rejects.toThrow(
      `CSIDriver.storage.k8s.io "${name}" is invalid: spec.attachedRequired: Invalid value: false: field is immutable`,
    );
    await expect(
      client.create(CSI_DRIVERS, undefined, { metadata: { name: "modes.csi.example.com" }, spec: { volumeLifecycleModes: ["Forever"] } }),
    ).rejects.toThrow('spec.volumeLifecycleModes[0]: Unsupported value: "Forever": supported values: "Ephemeral", "Persistent"');
    await client.delete(CSI_DRIVERS, undefined, name);
  });
});

/** NewVolumeAttachment. */
function newVolumeAttachment(vaName: string, pvName: string, nodeName: string, status: boolean): VolumeAttachment {
  return {
    metadata: { name: vaName },
    spec: { attacher: "e2e-test.storage.k8s.io", nodeName, source: { persistentVolumeName: pvName } },
    status: { attached: status },
  };
}

async function createVolumeAttachment(): Promise<[string, string]> {
  const randUID = `e2e-${randomSuffix()}`;
  const nodes = (await client.list(NODES)).items;
  const vaNodeName = nodes[Math.floor(Math.random() * nodes.length)]?.metadata?.name ?? "";
  const createdVA = await client.create<VolumeAttachment>(
    VOLUME_ATTACHMENTS,
    undefined,
    newVolumeAttachment(`va-${randUID}`, `pv-${randUID}`, vaNodeName, false),
  );
  expect(createdVA.metadata?.name).toBe(`va-${randUID}`);
  return [createdVA.metadata?.name ?? "", vaNodeName];
}

describe("[sig-storage] VolumeAttachment Conformance (test/e2e/storage/volume_attachment.go)", { timeout: 30_000 }, () => {
  it("should run through the lifecycle of a VolumeAttachment", async () => {
    const [firstVA] = await createVolumeAttachment();
    const retrievedVA = await client.get<VolumeAttachment>(VOLUME_ATTACHMENTS, undefined, firstVA);
    expect(retrievedVA.metadata?.name).toBe(firstVA);

    const patchedVA = await client.patch<VolumeAttachment>(VOLUME_ATTACHMENTS, undefined, firstVA, {
      metadata: { labels: { [firstVA]: "patched" } },
    });
    expect(patchedVA.metadata?.labels).toHaveProperty(firstVA, "patched");
    const patchedSelector = `${firstVA}=patched`;
    expect((await client.list(VOLUME_ATTACHMENTS, undefined, { labelSelector: patchedSelector })).items).toHaveLength(1);

    await client.delete(VOLUME_ATTACHMENTS, undefined, firstVA);
    expect((await client.list(VOLUME_ATTACHMENTS, undefined, { labelSelector: patchedSelector })).items).toHaveLength(0);

    const updatedSelector = "va-e2e=updated";
    for (let i = 0; i < 2; i++) {
      const [va] = await createVolumeAttachment();
      const currentVA = await client.get<VolumeAttachment>(VOLUME_ATTACHMENTS, undefined, va);
      currentVA.metadata!.labels = { "va-e2e": "updated" };
      const updatedVA = await client.update<VolumeAttachment>(VOLUME_ATTACHMENTS, undefined, currentVA);
      expect(updatedVA.metadata?.labels).toHaveProperty("va-e2e", "updated");
    }

    await client.deleteCollection(VOLUME_ATTACHMENTS, undefined, {}, { labelSelector: updatedSelector });
    expect((await client.list(VOLUME_ATTACHMENTS, undefined, { labelSelector: updatedSelector })).items).toHaveLength(0);
  });

  it("should apply changes to a volumeattachment status", async () => {
    const randUID = `e2e-${randomSuffix()}`;
    const vaName = `va-${randUID}`;
    const nodes = (await client.list(NODES)).items;
    const vaNodeName = nodes[Math.floor(Math.random() * nodes.length)]?.metadata?.name ?? "";
    const createdVA = await client.create<VolumeAttachment>(
      VOLUME_ATTACHMENTS,
      undefined,
      newVolumeAttachment(vaName, `pv-${randUID}`, vaNodeName, false),
    );
    expect(createdVA.metadata?.name).toBe(vaName);

    const patchedVA = await client.patch<VolumeAttachment>(VOLUME_ATTACHMENTS, undefined, vaName, {
      metadata: { labels: { [vaName]: "patched" } },
    });
    expect(patchedVA.metadata?.labels).toHaveProperty(vaName, "patched");

    // Reading the status: not attached
    const retrievedVA = (await client.request("GET", `/apis/storage.k8s.io/v1/volumeattachments/${vaName}/status`)) as VolumeAttachment;
    expect(retrievedVA.status?.attached).toBe(false);

    // Patching the status
    const vaPatched = await client.patch<VolumeAttachment>(
      VOLUME_ATTACHMENTS,
      undefined,
      vaName,
      { status: { attached: true } },
      undefined,
      "status",
    );
    expect(vaPatched.status?.attached).toBe(true);

    // Updating the status
    const statusToUpdate = await client.get<VolumeAttachment>(VOLUME_ATTACHMENTS, undefined, vaName);
    statusToUpdate.status!.attached = false;
    const updatedVA = await client.update<VolumeAttachment>(VOLUME_ATTACHMENTS, undefined, statusToUpdate, "status");
    expect(updatedVA.status?.attached).toBe(false);

    await client.delete(VOLUME_ATTACHMENTS, undefined, vaName);
    expect((await client.list(VOLUME_ATTACHMENTS, undefined, { labelSelector: `${vaName}=patched` })).items).toHaveLength(0);
  });

  it("keeps a VolumeAttachment's spec immutable and needs exactly one source", async () => {
    const [va] = await createVolumeAttachment();
    const current = await client.get<VolumeAttachment>(VOLUME_ATTACHMENTS, undefined, va);
    current.spec!.nodeName = "elsewhere";
    await expect(client.update(VOLUME_ATTACHMENTS, undefined, current)).rejects.toThrow(/spec: Invalid value: .*: field is immutable/);
    await expect(
      client.create(VOLUME_ATTACHMENTS, undefined, {
        metadata: { name: "no-source" },
        spec: { attacher: "a.example.com", nodeName: "n", source: {} },
      }),
    ).rejects.toThrow("spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName");
    await client.delete(VOLUME_ATTACHMENTS, undefined, va);
  });
});

describe("CSINode", { timeout: 30_000 }, () => {
  it("stores a node's drivers and refuses a driver listed twice", async () => {
    const created = await client.create<CSINode>(CSI_NODES, undefined, {
      metadata: { name: "csinode-a" },
      spec: { drivers: [{ name: "a.csi.example.com", nodeID: "node-a", topologyKeys: ["topology.example.com/zone"] }] },
    });
    expect(created.spec?.drivers).toHaveLength(1);
    await expect(
      client.create(CSI_NODES, undefined, {
        metadata: { name: "csinode-b" },
        spec: {
          drivers: [
            { name: "a.csi.example.com", nodeID: "x" },
            { name: "a.csi.example.com", nodeID: "y" },
          ],
        },
      }),
    ).rejects.toThrow('spec.drivers[1].name: Duplicate value: "a.csi.example.com"');
    await client.delete(CSI_NODES, undefined, "csinode-a");
  });
});
