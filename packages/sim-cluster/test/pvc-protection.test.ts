/**
 * Ports, with upstream's objects and assertions where they need no container runtime, of
 * kubernetes/kubernetes test/e2e/storage/pvc_protection.go ("[sig-storage] PVC Protection Verify
 * \"immediate\" deletion of a PVC that is not in active use by a pod", "Verify that PVC in active use
 * by a pod is not removed immediately") and test/e2e/storage/pv_protection.go ("[sig-storage] PV
 * Protection Verify \"immediate\" deletion of a PV that is not bound to a PVC", "Verify that PV bound
 * to a PVC is not removed immediately"); plus the finalizers the StorageObjectInUseProtection
 * admission plugin adds, and a claim whose pod finished (the pvcprotection controller no longer
 * counts a terminal pod as a user).
 */
import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimCluster, type SimCluster } from "../src/index.js";
import type { PersistentVolume, PersistentVolumeClaim } from "../src/resources/persistent-volumes.js";
import type { Pod } from "../src/resources/pods.js";
import { PERSISTENT_VOLUME_CLAIMS, PERSISTENT_VOLUMES, PODS, STORAGE_CLASSES } from "../src/refs.js";
import { eventually } from "./kubectl.js";

const NAMESPACES = { group: "", version: "v1", resource: "namespaces", namespaced: false };

let cluster: SimCluster;
let client: KubeClient;
let counter = 0;

beforeAll(async () => {
  cluster = await startSimCluster({ nodes: 1, podShutdownMs: 20 });
  client = new KubeClient({ server: cluster.url });
  await client.create(STORAGE_CLASSES, undefined, {
    metadata: { name: "standard", annotations: { "storageclass.kubernetes.io/is-default-class": "true" } },
    provisioner: "example.com/sim",
  });
}, 60_000);
afterAll(async () => {
  client.close();
  await cluster.close();
});

async function newNamespace(prefix: string): Promise<string> {
  const name = `${prefix}-${++counter}`;
  await client.create(NAMESPACES, undefined, { metadata: { name } });
  return name;
}

const claimGone = (ns: string, name: string) =>
  eventually(
    `claim ${name} gone`,
    async () =>
      await client.get(PERSISTENT_VOLUME_CLAIMS, ns, name).then(
        () => undefined,
        () => true,
      ),
    20_000,
  );

/** e2epv.MakePersistentVolumeClaim with the default class, waited for until Bound (as upstream's WaitForPersistentVolumeClaimPhase). */
async function boundClaim(ns: string, name: string): Promise<PersistentVolumeClaim> {
  await client.create(PERSISTENT_VOLUME_CLAIMS, ns, {
    metadata: { name },
    spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "2Gi" } } },
  });
  return eventually(
    `claim ${name} Bound`,
    async () => {
      const claim = await client.get<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS, ns, name);
      return claim.status?.phase === "Bound" ? claim : undefined;
    },
    20_000,
  );
}

async function runningPodUsing(ns: string, claim: string): Promise<Pod> {
  await client.create(PODS, ns, {
    metadata: { name: "pvc-tester" },
    spec: {
      restartPolicy: "Never",
      containers: [
        { name: "write-pod", image: "busybox", command: ["sleep", "3600"], volumeMounts: [{ name: "volume1", mountPath: "/mnt/volume1" }] },
      ],
      volumes: [{ name: "volume1", persistentVolumeClaim: { claimName: claim } }],
    },
  });
  return eventually(
    "pod pvc-tester Running",
    async () => {
      const pod = await client.get<Pod>(PODS, ns, "pvc-tester");
      return pod.status?.phase === "Running" ? pod : undefined;
    },
    20_000,
  );
}

describe("[sig-storage] PVC Protection (test/e2e/storage/pvc_protection.go)", { timeout: 60_000 }, () => {
  it("a new claim carries the kubernetes.io/pvc-protection finalizer", async () => {
    const ns = await newNamespace("pvc-protection");
    const claim = await boundClaim(ns, "pvc-protectionx");
    expect(claim.metadata?.finalizers).toContain("kubernetes.io/pvc-protection");
  });

  it('Verify "immediate" deletion of a PVC that is not in active use by a pod', async () => {
    const ns = await newNamespace("pvc-protection");
    await boundClaim(ns, "pvc-protectionx");
    await client.delete(PERSISTENT_VOLUME_CLAIMS, ns, "pvc-protectionx");
    await claimGone(ns, "pvc-protectionx");
  });

  it("Verify that PVC in active use by a pod is not removed immediately", async () => {
    const ns = await newNamespace("pvc-protection");
    await boundClaim(ns, "pvc-protectionx");
    await runningPodUsing(ns, "pvc-protectionx");
    await client.delete(PERSISTENT_VOLUME_CLAIMS, ns, "pvc-protectionx");
    // Checking that the PVC is not removed immediately: it is Terminating, its finalizer kept.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const terminating = await client.get<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS, ns, "pvc-protectionx");
    expect(terminating.metadata?.deletionTimestamp).toBeDefined();
    expect(terminating.metadata?.finalizers).toEqual(["kubernetes.io/pvc-protection"]);
    // Deleting the pod that uses the PVC lets the PVC go.
    await client.delete(PODS, ns, "pvc-tester");
    await claimGone(ns, "pvc-protectionx");
  });

  it("a claim in use by a pod that has finished is removed", async () => {
    const ns = await newNamespace("pvc-protection");
    await boundClaim(ns, "pvc-protectionx");
    await client.create(PODS, ns, {
      metadata: { name: "pvc-tester" },
      spec: {
        restartPolicy: "Never",
        containers: [{ name: "write-pod", image: "busybox", command: ["sh", "-c", "sleep 0.5; exit 0"] }],
        volumes: [{ name: "volume1", persistentVolumeClaim: { claimName: "pvc-protectionx" } }],
      },
    });
    await client.delete(PERSISTENT_VOLUME_CLAIMS, ns, "pvc-protectionx");
    await eventually(
      "pod pvc-tester Succeeded",
      async () => ((await client.get<Pod>(PODS, ns, "pvc-tester")).status?.phase === "Succeeded" ? true : undefined),
      20_000,
    );
    await claimGone(ns, "pvc-protectionx");
  });
});

describe("[sig-storage] PV Protection (test/e2e/storage/pv_protection.go)", { timeout: 60_000 }, () => {
  const pvSpec = (ns: string) => ({
    capacity: { storage: "1Gi" },
    accessModes: ["ReadWriteOnce"],
    persistentVolumeReclaimPolicy: "Retain",
    storageClassName: ns,
    hostPath: { path: "/tmp/pv-protection" },
  });

  it('Verify "immediate" deletion of a PV that is not bound to a PVC', async () => {
    const ns = await newNamespace("pv-protection");
    const pv = await client.create<PersistentVolume>(PERSISTENT_VOLUMES, undefined, {
      metadata: { name: `hostpath-${ns}` },
      spec: pvSpec(ns),
    });
    expect(pv.metadata?.finalizers).toContain("kubernetes.io/pv-protection");
    await eventually(
      "PV Available",
      async () =>
        (await client.get<PersistentVolume>(PERSISTENT_VOLUMES, undefined, `hostpath-${ns}`)).status?.phase === "Available"
          ? true
          : undefined,
      20_000,
    );
    await client.delete(PERSISTENT_VOLUMES, undefined, `hostpath-${ns}`);
    await eventually(
      "PV gone",
      async () =>
        client.get(PERSISTENT_VOLUMES, undefined, `hostpath-${ns}`).then(
          () => undefined,
          () => true,
        ),
      20_000,
    );
  });

  it("Verify that PV bound to a PVC is not removed immediately", async () => {
    const ns = await newNamespace("pv-protection");
    await client.create<PersistentVolume>(PERSISTENT_VOLUMES, undefined, { metadata: { name: `hostpath-${ns}` }, spec: pvSpec(ns) });
    await client.create(PERSISTENT_VOLUME_CLAIMS, ns, {
      metadata: { name: "pvc-tester" },
      spec: { accessModes: ["ReadWriteOnce"], storageClassName: ns, resources: { requests: { storage: "1Gi" } } },
    });
    await eventually(
      "PV Bound",
      async () =>
        (await client.get<PersistentVolume>(PERSISTENT_VOLUMES, undefined, `hostpath-${ns}`)).status?.phase === "Bound" ? true : undefined,
      20_000,
    );
    await client.delete(PERSISTENT_VOLUMES, undefined, `hostpath-${ns}`);
    // Checking that the PV status is Terminating: its deletion waits for the claim.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const terminating = await client.get<PersistentVolume>(PERSISTENT_VOLUMES, undefined, `hostpath-${ns}`);
    expect(terminating.metadata?.deletionTimestamp).toBeDefined();
    expect(terminating.metadata?.finalizers).toEqual(["kubernetes.io/pv-protection"]);
    // Deleting the PVC that is bound to the PV releases it, and the PV goes.
    await client.delete(PERSISTENT_VOLUME_CLAIMS, ns, "pvc-tester");
    await eventually(
      "PV gone",
      async () =>
        client.get(PERSISTENT_VOLUMES, undefined, `hostpath-${ns}`).then(
          () => undefined,
          () => true,
        ),
      20_000,
    );
  });
});
