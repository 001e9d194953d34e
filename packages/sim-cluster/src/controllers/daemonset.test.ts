import type { KubeObject } from "@kubekit/generic-controlplane";
import { Informer, KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../../test/kubectl.js";
import { startSimCluster, type SimCluster } from "../cluster.js";
import type { DaemonSet } from "../resources/daemonsets.js";
import { targetNodeName } from "./daemonset-pods.js";
import { CONTROLLER_REVISIONS, DAEMON_SETS, NODES, PODS } from "../refs.js";

let cluster: SimCluster | undefined;
let client: KubeClient | undefined;
afterEach(async () => {
  client?.close();
  client = undefined;
  await cluster?.close();
  cluster = undefined;
});

async function start(options: Parameters<typeof startSimCluster>[0]): Promise<{ cluster: SimCluster; client: KubeClient }> {
  cluster = await startSimCluster(options);
  client = new KubeClient({ server: cluster.url });
  return { cluster, client };
}

type Pod = KubeObject & {
  spec: { nodeName?: string; containers: Array<{ image: string }>; tolerations?: unknown[] };
  status: { phase?: string };
};

const daemonSet = (
  name: string,
  extra: { image?: string; podSpec?: Record<string, unknown>; updateStrategy?: unknown; minReadySeconds?: number } = {},
) => ({
  metadata: { name },
  spec: {
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: "c", image: extra.image ?? "agent:1" }], ...(extra.podSpec ?? {}) },
    },
    ...(extra.updateStrategy !== undefined ? { updateStrategy: extra.updateStrategy } : {}),
    ...(extra.minReadySeconds !== undefined ? { minReadySeconds: extra.minReadySeconds } : {}),
  },
});

/** The DaemonSet's pods that are not terminating (a deleted pod lingers while its kubelet stops it). */
async function daemonPods(c: KubeClient, app: string): Promise<Pod[]> {
  return (await c.list<Pod>(PODS, "default", { labelSelector: `app=${app}` })).items.filter(
    (p) => p.metadata?.deletionTimestamp === undefined,
  );
}

/** Waits until every node in `nodes` runs exactly one Running pod of `app` with `image`, and no other node runs one. */
async function runningOn(c: KubeClient, app: string, nodes: string[], image = "agent:1"): Promise<Pod[]> {
  return eventually(`${app} on ${nodes.join(",")} with ${image}`, async () => {
    const pods = await daemonPods(c, app);
    const ok =
      pods.length === nodes.length &&
      pods.every((p) => p.status.phase === "Running" && p.spec.containers[0]!.image === image) &&
      new Set(pods.map((p) => p.spec.nodeName)).size === nodes.length &&
      nodes.every((n) => pods.some((p) => p.spec.nodeName === n));
    return ok ? pods : undefined;
  });
}

async function settledStatus(c: KubeClient, name: string, want: Record<string, number>): Promise<DaemonSet["status"]> {
  return eventually(`${name}'s status to read ${JSON.stringify(want)}`, async () => {
    const ds = await c.get<DaemonSet>(DAEMON_SETS, "default", name);
    return Object.entries(want).every(([k, v]) => ds.status?.[k] === v) && ds.status?.observedGeneration === ds.metadata?.generation
      ? ds.status
      : undefined;
  });
}

// After test/e2e/apps/daemon_set.go.
// Each case starts a cluster and waits on several rollouts: more than the default 5 s on a loaded machine.
describe("DaemonSet controller", { timeout: 20_000 }, () => {
  it("should run and stop simple daemon: one pod per node; a deleted pod is revived", async () => {
    const { client } = await start({ nodes: 3 });
    await client.create(DAEMON_SETS, "default", daemonSet("simple"));
    const pods = await runningOn(client, "simple", ["sim-node-1", "sim-node-2", "sim-node-3"]);
    expect(
      await settledStatus(client, "simple", {
        desiredNumberScheduled: 3,
        currentNumberScheduled: 3,
        numberReady: 3,
        updatedNumberScheduled: 3,
        numberAvailable: 3,
        numberMisscheduled: 0,
      }),
    ).toMatchObject({ numberUnavailable: 0 });
    // Placed by the scheduler through node affinity, with the default daemon tolerations.
    const first = pods[0]!;
    expect(first.spec).toMatchObject({
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "In", values: [first.spec.nodeName] }] }],
          },
        },
      },
    });
    expect(first.spec.tolerations).toEqual([
      { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute" },
      { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute" },
      { key: "node.kubernetes.io/disk-pressure", operator: "Exists", effect: "NoSchedule" },
      { key: "node.kubernetes.io/memory-pressure", operator: "Exists", effect: "NoSchedule" },
      { key: "node.kubernetes.io/pid-pressure", operator: "Exists", effect: "NoSchedule" },
      { key: "node.kubernetes.io/unschedulable", operator: "Exists", effect: "NoSchedule" },
    ]);
    expect(first.metadata?.labels?.["controller-revision-hash"]).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]+$/);

    await client.delete(PODS, "default", first.metadata!.name!);
    const revived = await runningOn(client, "simple", ["sim-node-1", "sim-node-2", "sim-node-3"]);
    expect(revived.map((p) => p.metadata!.name)).not.toContain(first.metadata!.name);
  });

  it("should run and stop complex daemon: nodes gain and lose the pod as labels, taints and nodes change", async () => {
    const { cluster, client } = await start({
      nodes: [
        { name: "blue", labels: { color: "blue" } },
        { name: "green", labels: { color: "green" } },
        { name: "tainted", labels: { color: "blue" }, taints: [{ key: "dedicated", value: "x", effect: "NoSchedule" }] },
      ],
    });
    await client.create(DAEMON_SETS, "default", daemonSet("blue", { podSpec: { nodeSelector: { color: "blue" } } }));
    await runningOn(client, "blue", ["blue"]);
    expect(await settledStatus(client, "blue", { desiredNumberScheduled: 1, numberAvailable: 1 })).toBeDefined();

    // Relabelled green node: it gains a pod; the blue one, relabelled away, loses its pod (misscheduled until then).
    await client.patch(NODES, undefined, "green", { metadata: { labels: { color: "blue" } } }, "application/merge-patch+json");
    await runningOn(client, "blue", ["blue", "green"]);
    await client.patch(NODES, undefined, "blue", { metadata: { labels: { color: "red" } } }, "application/merge-patch+json");
    await runningOn(client, "blue", ["green"]);

    // A toleration of the taint admits the tainted node; a NoExecute taint there later removes the pod.
    await client.create(
      DAEMON_SETS,
      "default",
      daemonSet("tolerant", { podSpec: { tolerations: [{ key: "dedicated", operator: "Exists", effect: "NoSchedule" }] } }),
    );
    await runningOn(client, "tolerant", ["blue", "green", "tainted"]);
    await client.patch(
      NODES,
      undefined,
      "tainted",
      {
        spec: {
          taints: [
            { key: "dedicated", value: "x", effect: "NoSchedule" },
            { key: "evict", effect: "NoExecute" },
          ],
        },
      },
      "application/merge-patch+json",
    );
    await runningOn(client, "tolerant", ["blue", "green"]);

    // Nodes added and removed.
    const added = await cluster.addNode({ name: "extra" });
    await runningOn(client, "tolerant", ["blue", "green", added]);
    await cluster.removeNode("green");
    await runningOn(client, "tolerant", ["blue", added]);
    expect(
      await settledStatus(client, "tolerant", { desiredNumberScheduled: 2, currentNumberScheduled: 2, numberAvailable: 2 }),
    ).toBeDefined();
  });

  it("should update pod when spec was updated and update strategy is RollingUpdate; revisions are kept as ControllerRevisions", async () => {
    const { client } = await start({ nodes: 3 });
    await client.create(DAEMON_SETS, "default", daemonSet("rolling"));
    await runningOn(client, "rolling", ["sim-node-1", "sim-node-2", "sim-node-3"]);
    await client.patch(
      DAEMON_SETS,
      "default",
      "rolling",
      { spec: { template: { spec: { containers: [{ name: "c", image: "agent:2" }] } } } },
      "application/strategic-merge-patch+json",
    );
    await runningOn(client, "rolling", ["sim-node-1", "sim-node-2", "sim-node-3"], "agent:2");
    expect(
      await settledStatus(client, "rolling", { desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 3 }),
    ).toBeDefined();
    const revisions = (await client.list<KubeObject & { revision: number }>(CONTROLLER_REVISIONS, "default")).items;
    expect(revisions.map((r) => r.revision).sort()).toEqual([1, 2]);
    const newest = revisions.find((r) => r.revision === 2)!;
    const pods = await daemonPods(client, "rolling");
    expect(
      pods.every((p) => p.metadata?.labels?.["controller-revision-hash"] === newest.metadata?.labels?.["controller-revision-hash"]),
    ).toBe(true);
    expect(newest.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "DaemonSet", name: "rolling", controller: true });
  });

  it("should surge pods onto nodes when spec was updated and update strategy is RollingUpdate with maxSurge", async () => {
    const { client } = await start({ nodes: 3 });
    await client.create(
      DAEMON_SETS,
      "default",
      daemonSet("surge", { updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } }),
    );
    await runningOn(client, "surge", ["sim-node-1", "sim-node-2", "sim-node-3"]);
    // Every pod event in order: at most one node (maxSurge) waits for a new pod to become ready
    // beside its old one, never fewer than 3 pods are ready, and on each node the new pod is
    // there before the old one goes.
    const live = new Map<string, { node: string; image: string; ready: boolean }>();
    let maxSurging = 0;
    let minReady = Infinity;
    const surgedNodes = new Set<string>();
    const record = (pod: KubeObject, deleted: boolean) => {
      const p = pod as Pod & { status: { conditions?: Array<{ type: string; status: string }> } };
      const name = p.metadata!.name!;
      if (deleted) {
        const gone = live.get(name);
        live.delete(name);
        if (gone?.image === "agent:1" && [...live.values()].some((other) => other.node === gone.node && other.image === "agent:2"))
          surgedNodes.add(gone.node);
      } else {
        live.set(name, {
          node: targetNodeName(p as never) ?? "",
          image: p.spec.containers[0]!.image,
          ready: p.status.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true,
        });
      }
      const pods = [...live.values()];
      const surging = new Set(
        pods
          .filter((x) => x.image === "agent:2" && !x.ready && pods.some((o) => o.node === x.node && o.image === "agent:1"))
          .map((x) => x.node),
      );
      maxSurging = Math.max(maxSurging, surging.size);
      minReady = Math.min(minReady, [...live.values()].filter((x) => x.ready).length);
    };
    const watcher = new Informer(client, PODS, { namespace: "default", labelSelector: "app=surge" });
    watcher.addEventHandler({ add: (p) => record(p, false), update: (_o, p) => record(p, false), delete: (p) => record(p, true) });
    watcher.start();
    try {
      await watcher.waitForSync();
      expect([...live.values()].filter((x) => x.ready)).toHaveLength(3);
      // Measured from here: the initial list arrives one pod at a time.
      minReady = Infinity;
      await client.patch(
        DAEMON_SETS,
        "default",
        "surge",
        { spec: { template: { spec: { containers: [{ name: "c", image: "agent:2" }] } } } },
        "application/strategic-merge-patch+json",
      );
      await eventually("every pod replaced", () =>
        Promise.resolve(live.size === 3 && [...live.values()].every((x) => x.image === "agent:2" && x.ready) ? true : undefined),
      );
    } finally {
      await watcher.stop();
    }
    expect(maxSurging).toBe(1);
    expect(minReady).toBeGreaterThanOrEqual(3);
    expect(surgedNodes).toEqual(new Set(["sim-node-1", "sim-node-2", "sim-node-3"]));
  });

  // test/e2e/apps/daemon_set.go, "should rollback without unnecessary restarts" (conformance:
  // DaemonSet-Rollback): upstream's objects and checks; the rollout stalls on an image no
  // registry serves, whose pod waits in ErrImagePull/ImagePullBackOff as under a kubelet.
  it("should rollback without unnecessary restarts", async () => {
    const { client: c } = await start({ nodes: 2 });
    const ns = "default";
    const image = "registry.k8s.io/e2e-test-images/httpd:2.4.38-4";
    const label = { "daemonset-name": "daemon-set" };
    const selector = "daemonset-name=daemon-set";
    type DaemonPod = Pod & {
      status: {
        conditions?: Array<{ type: string; status: string }>;
        containerStatuses?: Array<{ state?: { waiting?: { reason?: string } } }>;
      };
    };
    const listDaemonPods = async () => (await c.list<DaemonPod>(PODS, ns, { labelSelector: selector })).items;
    const isAvailable = (p: DaemonPod) => p.status.conditions?.some((x) => x.type === "Ready" && x.status === "True") === true;
    const nodeNames = ["sim-node-1", "sim-node-2"];
    const dsObject = {
      metadata: { name: "daemon-set" },
      spec: {
        selector: { matchLabels: label },
        template: { metadata: { labels: label }, spec: { containers: [{ name: "app", image, ports: [{ containerPort: 9376 }] }] } },
        updateStrategy: { type: "RollingUpdate" },
      },
    };
    const ds = await c.create<DaemonSet>(DAEMON_SETS, ns, dsObject);
    const controlled = (p: DaemonPod) => p.metadata?.ownerReferences?.some((r) => r.controller && r.uid === ds.metadata?.uid) === true;

    // checkRunningOnAllNodes: one available pod on each node.
    await eventually("daemon pods available on every node", async () => {
      const pods = (await listDaemonPods()).filter((p) => controlled(p) && p.metadata?.deletionTimestamp === undefined && isAvailable(p));
      return nodeNames.every((n) => pods.filter((p) => p.spec.nodeName === n).length === 1) && pods.length === nodeNames.length
        ? true
        : undefined;
    });

    // We use a nonexistent image here, so that we make sure it won't finish.
    const newImage = "foo:non-existent";
    const updateImage = async (to: string) => {
      const current = await c.get<DaemonSet & { spec: typeof dsObject.spec }>(DAEMON_SETS, ns, "daemon-set");
      current.spec.template.spec.containers[0]!.image = to;
      await c.update(DAEMON_SETS, ns, current);
    };
    await updateImage(newImage);
    // checkAtLeastOneNewPod.
    await eventually("a pod with the new image", async () =>
      (await listDaemonPods()).some((p) => p.spec.containers[0]!.image === newImage) ? true : undefined,
    );
    const pods = await listDaemonPods();
    const existingPods = pods.filter((p) => p.spec.containers[0]!.image === image);
    const newPods = pods.filter((p) => p.spec.containers[0]!.image === newImage);
    expect(existingPods.length + newPods.length, "unexpected pod found").toBe(pods.length);
    expect(existingPods).not.toHaveLength(0);
    expect(newPods).not.toHaveLength(0);
    // The new pod cannot start: its container waits on the image, as a kubelet reports it.
    const waiting = await eventually("the new pod waiting on its image", async () => {
      const pod = (await listDaemonPods()).find((p) => p.spec.containers[0]!.image === newImage);
      return pod?.status.containerStatuses?.[0]?.state?.waiting?.reason;
    });
    expect(["ErrImagePull", "ImagePullBackOff"]).toContain(waiting);

    // Roll back the DaemonSet before rollout is complete.
    await updateImage(image);
    // checkDaemonPodsImageAndAvailability(c, rollbackDS, image, 1).
    await eventually("the rollback complete", async () => {
      const current = (await listDaemonPods()).filter(controlled);
      const unavailable = current.filter((p) => !isAvailable(p)).length;
      if (unavailable > 1) throw new Error(`number of unavailable pods: ${unavailable} is greater than maxUnavailable: 1`);
      return nodeNames.every((n) => current.some((p) => p.spec.nodeName === n && p.spec.containers[0]!.image === image)) ? true : undefined;
    });
    // The pods that ran the old image before were not restarted.
    const rollbackPods = new Set((await listDaemonPods()).map((p) => p.metadata?.name));
    for (const pod of existingPods)
      expect(rollbackPods.has(pod.metadata?.name), `unexpected pod ${pod.metadata?.name ?? ""} be restarted`).toBe(true);
  });

  it("should not update pod when spec was updated and update strategy is OnDelete", async () => {
    const { client } = await start({ nodes: 2 });
    await client.create(DAEMON_SETS, "default", daemonSet("ondelete", { updateStrategy: { type: "OnDelete" } }));
    const before = await runningOn(client, "ondelete", ["sim-node-1", "sim-node-2"]);
    await client.patch(
      DAEMON_SETS,
      "default",
      "ondelete",
      { spec: { template: { spec: { containers: [{ name: "c", image: "agent:2" }] } } } },
      "application/strategic-merge-patch+json",
    );
    expect(
      await settledStatus(client, "ondelete", { desiredNumberScheduled: 2, updatedNumberScheduled: 0, numberAvailable: 2 }),
    ).toBeDefined();
    expect((await daemonPods(client, "ondelete")).map((p) => p.metadata!.name).sort()).toEqual(before.map((p) => p.metadata!.name).sort());
    // Only a deleted pod comes back with the new template.
    const victim = before.find((p) => p.spec.nodeName === "sim-node-1")!;
    await client.delete(PODS, "default", victim.metadata!.name!);
    const after = await eventually("the replacement", async () => {
      const pods = await daemonPods(client, "ondelete");
      const replacement = pods.find((p) => p.spec.nodeName === "sim-node-1" && p.status.phase === "Running");
      return pods.length === 2 && replacement !== undefined ? pods : undefined;
    });
    expect(Object.fromEntries(after.map((p) => [p.spec.nodeName, p.spec.containers[0]!.image]))).toEqual({
      "sim-node-1": "agent:2",
      "sim-node-2": "agent:1",
    });
    expect(await settledStatus(client, "ondelete", { updatedNumberScheduled: 1 })).toBeDefined();
  });

  // The ControllerRefManager every controller shares: a matching orphan is adopted, not duplicated.
  it("adopts a matching orphaned pod on its node and releases a pod that no longer matches", async () => {
    const { client } = await start({ nodes: 2 });
    await client.create(PODS, "default", {
      metadata: { name: "orphan", labels: { app: "adopter" } },
      spec: { nodeName: "sim-node-1", containers: [{ name: "c", image: "agent:1" }] },
    });
    // OnDelete: under RollingUpdate the adopted pod, without the revision hash label, would be replaced as out of date (as upstream).
    await client.create(DAEMON_SETS, "default", daemonSet("adopter", { updateStrategy: { type: "OnDelete" } }));
    const adopted = await eventually("the orphan to be adopted", async () => {
      const p = await client.get<Pod>(PODS, "default", "orphan");
      return p.metadata?.ownerReferences?.length ? p : undefined;
    });
    expect(adopted.metadata?.ownerReferences).toEqual([expect.objectContaining({ kind: "DaemonSet", name: "adopter", controller: true })]);
    // It serves as the node's daemon pod: one pod a node, the adopted one kept.
    const pods = await runningOn(client, "adopter", ["sim-node-1", "sim-node-2"]);
    expect(pods.find((p) => p.spec.nodeName === "sim-node-1")?.metadata?.name).toBe("orphan");

    await client.patch(PODS, "default", "orphan", { metadata: { labels: { app: "elsewhere" } } }, "application/merge-patch+json");
    const replaced = await runningOn(client, "adopter", ["sim-node-1", "sim-node-2"]);
    expect(replaced.map((p) => p.metadata?.name)).not.toContain("orphan");
    expect((await client.get<Pod>(PODS, "default", "orphan")).metadata?.ownerReferences ?? []).toEqual([]);
  });
});
