/**
 * Ports, with upstream's objects and assertions, of kubernetes/kubernetes
 * test/e2e/apps/statefulset.go (not conformance: they need a default StorageClass and a
 * provisioner, which the test creates): "[sig-apps] StatefulSet Non-retain
 * StatefulSetPersistentVolumeClaimPolicy should delete PVCs with a WhenDeleted policy" and
 * "should delete PVCs with a OnScaledown policy", and of "Basic StatefulSet functionality should
 * provide basic identity" the parts that need no container runtime (CheckHostname,
 * CheckServiceName, a claim per pod kept across a restart) and "should adopt matching orphans and
 * release non-matching pods"; plus spec.ordinals.start, the headless service's endpoints naming
 * each pod, and a disruption budget over a StatefulSet's pods.
 */
import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startSimCluster, type SimCluster } from "../src/index.js";
import type { PersistentVolumeClaim } from "../src/resources/persistent-volumes.js";
import type { StatefulSet } from "../src/resources/statefulsets.js";
import { PERSISTENT_VOLUME_CLAIMS, PODS, SERVICES, STATEFUL_SETS, STORAGE_CLASSES } from "../src/refs.js";
import { eventually } from "./kubectl.js";
import { getPodList, newStatefulSet, waitForRunningAndReady, waitForState } from "./statefulset-helpers.js";

const NAMESPACES = { group: "", version: "v1", resource: "namespaces", namespaced: false };
const PDBS = { group: "policy", version: "v1", resource: "poddisruptionbudgets", namespaced: true };
const ENDPOINT_SLICES = { group: "discovery.k8s.io", version: "v1", resource: "endpointslices", namespaced: true };
const labels = { foo: "bar", baz: "blah" };
const headlessSvcName = "test";

let cluster: SimCluster;
let client: KubeClient;
let ns: string;
let counter = 0;

beforeAll(async () => {
  cluster = await startSimCluster({ nodes: 2, podShutdownMs: 20 });
  client = new KubeClient({ server: cluster.url });
  await client.create(STORAGE_CLASSES, undefined, {
    metadata: { name: "standard", annotations: { "storageclass.kubernetes.io/is-default-class": "true" } },
    provisioner: "example.com/sim",
  });
});
afterAll(async () => {
  client.close();
  await cluster.close();
});
beforeEach(async () => {
  ns = `statefulset-storage-${++counter}`;
  await client.create(NAMESPACES, undefined, { metadata: { name: ns } });
  await client.create(SERVICES, ns, {
    metadata: { name: headlessSvcName },
    spec: { clusterIP: "None", selector: labels, ports: [{ port: 80, name: "http" }] },
  });
});

/** e2estatefulset.NewStatefulSet with statefulPodMounts: a `datadir` claim template of 1Mi ReadWriteOnce. */
function withClaims(name: string, replicas: number): StatefulSet {
  const ss = newStatefulSet(name, ns, headlessSvcName, replicas, labels);
  ss.spec!.template!.spec!.containers![0]!["volumeMounts"] = [{ name: "datadir", mountPath: "/data/" }];
  ss.spec!.volumeClaimTemplates = [
    { metadata: { name: "datadir" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Mi" } } } },
  ];
  return ss;
}

/** `verifyStatefulSetPVCsExist`: exactly the claims of these ordinals. */
async function verifyStatefulSetPVCsExist(ss: StatefulSet, ordinals: number[]): Promise<PersistentVolumeClaim[]> {
  const want = ordinals.map((i) => `datadir-${ss.metadata!.name!}-${i}`).sort();
  return eventually(
    `claims ${want.join(", ") || "none"}`,
    async () => {
      const claims = (await client.list<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS, ns)).items.filter(
        (c) => c.metadata?.deletionTimestamp === undefined,
      );
      const names = claims.map((c) => c.metadata?.name ?? "").sort();
      return JSON.stringify(names) === JSON.stringify(want) ? claims : undefined;
    },
    20_000,
  );
}

describe("[sig-apps] StatefulSet with claims (test/e2e/apps/statefulset.go)", { timeout: 60_000 }, () => {
  it("should provide basic identity", async () => {
    let ss = withClaims("ss", 3);
    ss = await client.create<StatefulSet>(STATEFUL_SETS, ns, ss);
    await waitForRunningAndReady(client, 3, ss);
    // CheckHostname and CheckServiceName
    const pods = await getPodList(client, ss);
    for (const pod of pods) {
      expect(pod.spec?.["hostname"]).toBe(pod.metadata?.name);
      expect(pod.spec?.["subdomain"]).toBe(headlessSvcName);
      expect(pod.metadata?.labels?.["statefulset.kubernetes.io/pod-name"]).toBe(pod.metadata?.name);
    }
    const claims = await verifyStatefulSetPVCsExist(ss, [0, 1, 2]);
    expect(claims.every((c) => c.status?.phase === "Bound")).toBe(true);
    const volumeOf = Object.fromEntries(claims.map((c): [string, string | undefined] => [c.metadata?.name ?? "", c.spec?.volumeName]));

    // Restart: scale to 0 and back; each pod comes back with the claim (and volume) it had.
    ss = await client.patch<StatefulSet>(STATEFUL_SETS, ns, "ss", { spec: { replicas: 0 } }, "application/merge-patch+json");
    await waitForState(client, ss, "no pods", (_set, list) => list.length === 0);
    ss = await client.patch<StatefulSet>(STATEFUL_SETS, ns, "ss", { spec: { replicas: 3 } }, "application/merge-patch+json");
    await waitForRunningAndReady(client, 3, ss);
    const after = await verifyStatefulSetPVCsExist(ss, [0, 1, 2]);
    expect(Object.fromEntries(after.map((c): [string, string | undefined] => [c.metadata?.name ?? "", c.spec?.volumeName]))).toEqual(
      volumeOf,
    );

    // The headless service's endpoints name each pod by its hostname.
    const hostnames = await eventually("3 endpoints with hostnames", async () => {
      const slices = await client.list<{ endpoints?: Array<{ hostname?: string }> } & { metadata?: object }>(ENDPOINT_SLICES, ns, {
        labelSelector: `kubernetes.io/service-name=${headlessSvcName}`,
      });
      const names = slices.items.flatMap((s) => (s.endpoints ?? []).map((e) => e.hostname ?? "")).sort();
      return names.length === 3 ? names : undefined;
    });
    expect(hostnames).toEqual(["ss-0", "ss-1", "ss-2"]);
  });

  it("should adopt matching orphans and release non-matching pods", async () => {
    const ss = withClaims("ss", 1);
    const created = await client.create<StatefulSet>(STATEFUL_SETS, ns, ss);
    await waitForRunningAndReady(client, 1, ss);
    const controllerOf = async (name: string) =>
      (await client.get(PODS, ns, name)).metadata?.ownerReferences?.find((r) => r.controller === true);
    expect(await controllerOf("ss-0")).toMatchObject({ kind: "StatefulSet", name: "ss", uid: created.metadata?.uid });
    // A pod with the set's labels but not one of its names is left alone.
    await client.create(PODS, ns, { metadata: { name: "stranger", labels }, spec: { containers: [{ name: "c", image: "x" }] } });

    // Orphaning one of the stateful set's pods
    const pod = await client.get(PODS, ns, "ss-0");
    await client.update(PODS, ns, { ...pod, metadata: { ...pod.metadata, ownerReferences: [] } });
    await eventually("ss-0 readopted", async () => ((await controllerOf("ss-0"))?.uid === created.metadata?.uid ? true : undefined));
    // Removing the labels from one of the stateful set's pods
    const adopted = await client.get(PODS, ns, "ss-0");
    const prevLabels = adopted.metadata?.labels;
    await client.update(PODS, ns, { ...adopted, metadata: { ...adopted.metadata, labels: {} } });
    await eventually("ss-0 released", async () => ((await controllerOf("ss-0")) === undefined ? true : undefined));
    // Readding labels to the stateful set's pod
    const released = await client.get(PODS, ns, "ss-0");
    await client.update(PODS, ns, { ...released, metadata: { ...released.metadata, ...(prevLabels ? { labels: prevLabels } : {}) } });
    await eventually("ss-0 readopted", async () => ((await controllerOf("ss-0"))?.uid === created.metadata?.uid ? true : undefined));
    expect(await controllerOf("stranger")).toBeUndefined();
  });

  it("should delete PVCs with a WhenDeleted policy", async () => {
    const ss = withClaims("ss", 3);
    ss.spec!.persistentVolumeClaimRetentionPolicy = { whenDeleted: "Delete" };
    const created = await client.create<StatefulSet>(STATEFUL_SETS, ns, ss);
    // verifyStatefulSetPVCsExistWithOwnerRefs(…, true, false): each claim owned by the set, none by a pod.
    await eventually(
      "claims owned by the set",
      async () => {
        const claims = await verifyStatefulSetPVCsExist(ss, [0, 1, 2]);
        const ok = claims.every(
          (c) =>
            (c.metadata?.ownerReferences ?? []).some((r) => r.kind === "StatefulSet" && r.uid === created.metadata?.uid) &&
            !(c.metadata?.ownerReferences ?? []).some((r) => r.kind === "Pod"),
        );
        return ok ? true : undefined;
      },
      20_000,
    );
    await client.delete(STATEFUL_SETS, ns, "ss");
    await verifyStatefulSetPVCsExist(ss, []);
  });

  it("should delete PVCs with a OnScaledown policy", async () => {
    const ss = withClaims("ss", 3);
    ss.spec!.persistentVolumeClaimRetentionPolicy = { whenScaled: "Delete" };
    await client.create<StatefulSet>(STATEFUL_SETS, ns, ss);
    await verifyStatefulSetPVCsExist(ss, [0, 1, 2]);
    await waitForRunningAndReady(client, 3, ss);
    await client.patch(STATEFUL_SETS, ns, "ss", { spec: { replicas: 1 } }, "application/merge-patch+json");
    await verifyStatefulSetPVCsExist(ss, [0]);
  });

  it("numbers pods and claims from spec.ordinals.start", async () => {
    const ss = withClaims("ord", 2);
    ss.spec!.ordinals = { start: 3 };
    await client.create<StatefulSet>(STATEFUL_SETS, ns, ss);
    await waitForRunningAndReady(client, 2, ss);
    const pods = await client.list(PODS, ns);
    expect(pods.items.map((p) => p.metadata?.name).sort()).toEqual(["ord-3", "ord-4"]);
    expect(pods.items.map((p) => p.metadata?.labels?.["apps.kubernetes.io/pod-index"]).sort()).toEqual(["3", "4"]);
    await verifyStatefulSetPVCsExist(ss, [3, 4]);
  });
});

describe("disruption budgets over a StatefulSet's pods", { timeout: 60_000 }, () => {
  it("take the StatefulSet's replicas as the expected count of a percentage budget", async () => {
    const ss = newStatefulSet("ss", ns, headlessSvcName, 3, labels);
    await client.create<StatefulSet>(STATEFUL_SETS, ns, ss);
    await waitForRunningAndReady(client, 3, ss);
    await client.create(PDBS, ns, { metadata: { name: "budget" }, spec: { maxUnavailable: "33%", selector: { matchLabels: labels } } });
    const status = await eventually("the budget computed", async () => {
      const pdb = await client.get<
        { status?: { expectedPods?: number; disruptionsAllowed?: number; observedGeneration?: number } } & StatefulSet
      >(PDBS, ns, "budget");
      return (pdb.status?.observedGeneration ?? 0) >= 1 ? pdb.status : undefined;
    });
    expect(status).toMatchObject({ expectedPods: 3, currentHealthy: 3, desiredHealthy: 2, disruptionsAllowed: 1 });
  });
});
