import type { KubeObject } from "@kubekit/generic-controlplane";
import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../../test/kubectl.js";
import { startSimCluster, type SimCluster } from "../cluster.js";
import { DEPLOYMENTS, PODS, REPLICA_SETS } from "../refs.js";

let cluster: SimCluster | undefined;
let client: KubeClient | undefined;
afterEach(async () => {
  client?.close();
  client = undefined;
  await cluster?.close();
  cluster = undefined;
});

async function start(options: Parameters<typeof startSimCluster>[0]): Promise<KubeClient> {
  cluster = await startSimCluster(options);
  client = new KubeClient({ server: cluster.url });
  return client;
}

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}
type Deployment = KubeObject & {
  spec: { replicas: number };
  status: {
    replicas?: number;
    updatedReplicas?: number;
    availableReplicas?: number;
    readyReplicas?: number;
    observedGeneration?: number;
    conditions?: Condition[];
  };
};
type ReplicaSet = KubeObject & {
  spec: { replicas: number; template: { spec: { containers: Array<{ image: string }> } } };
  status: { replicas?: number; readyReplicas?: number; availableReplicas?: number };
};
type Pod = KubeObject & { status: { phase?: string } };

const MERGE = "application/merge-patch+json";
const deployment = (name: string, spec: Record<string, unknown> = {}, podSpec: Record<string, unknown> = {}) => ({
  metadata: { name },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "v1" }], ...podSpec } },
    ...spec,
  },
});

async function replicaSets(c: KubeClient, app: string): Promise<ReplicaSet[]> {
  return (await c.list<ReplicaSet>(REPLICA_SETS, "default", { labelSelector: `app=${app}` })).items;
}

function byImage(sets: ReplicaSet[]): Record<string, number> {
  return Object.fromEntries(sets.map((rs) => [rs.spec.template.spec.containers[0]!.image, rs.spec.replicas]));
}

async function rolledOut(c: KubeClient, name: string): Promise<Deployment> {
  return eventually(`${name} to roll out`, async () => {
    const d = await c.get<Deployment>(DEPLOYMENTS, "default", name);
    const r = d.spec.replicas;
    const done =
      d.status.observedGeneration === d.metadata?.generation &&
      d.status.updatedReplicas === r &&
      d.status.replicas === r &&
      d.status.availableReplicas === r;
    return done && d.status.conditions?.some((x) => x.type === "Progressing" && x.reason === "NewReplicaSetAvailable") ? d : undefined;
  });
}

function progressing(d: Deployment): Condition | undefined {
  return d.status.conditions?.find((c) => c.type === "Progressing");
}

// Each case starts a cluster and waits on several rollouts: more than the default 5 s on a loaded machine.
describe("Deployment controller", { timeout: 20_000 }, () => {
  // test/e2e/apps/deployment.go: testProportionalScalingDeployment (the blocked new ReplicaSet is
  // one whose pods fit no node, rather than one with an image that does not exist).
  it("deployment should support proportional scaling", async () => {
    const c = await start({ nodes: 2, nodeCapacity: { pods: "110" } });
    await c.create(
      DEPLOYMENTS,
      "default",
      deployment("webserver", { replicas: 10, strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 3, maxUnavailable: 2 } } }),
    );
    await rolledOut(c, "webserver");
    await c.patch(
      DEPLOYMENTS,
      "default",
      "webserver",
      { spec: { template: { spec: { containers: [{ name: "c", image: "v2" }], nodeSelector: { nowhere: "true" } } } } },
      "application/strategic-merge-patch+json",
    );
    // The first ReplicaSet keeps minAvailable (8), the blocked second one holds the surge (5).
    await eventually("8 old and 5 blocked new replicas", async () => {
      const sets = byImage(await replicaSets(c, "webserver"));
      return sets["v1"] === 8 && sets["v2"] === 5 ? true : undefined;
    });
    await c.patch(DEPLOYMENTS, "default", "webserver", { spec: { replicas: 30 } }, MERGE);
    // 20 more replicas over 13 (max-replicas): 8 -> 20 and 5 -> 13.
    await eventually("20 old and 13 new replicas", async () => {
      const sets = byImage(await replicaSets(c, "webserver"));
      return sets["v1"] === 20 && sets["v2"] === 13 ? true : undefined;
    });
    const sets = await replicaSets(c, "webserver");
    expect(sets.map((rs) => rs.metadata?.annotations?.["deployment.kubernetes.io/desired-replicas"])).toEqual(["30", "30"]);
  });

  // test/integration/deployment: TestPausedDeployment.
  it("a paused deployment does not roll out, but scales; resuming rolls out", async () => {
    const c = await start({ nodes: 2 });
    await c.create(DEPLOYMENTS, "default", deployment("paused"));
    await rolledOut(c, "paused");
    await c.patch(DEPLOYMENTS, "default", "paused", { spec: { paused: true } }, MERGE);
    const pausedCondition = await eventually("the paused condition", async () => {
      const d = await c.get<Deployment>(DEPLOYMENTS, "default", "paused");
      return progressing(d)?.reason === "DeploymentPaused" ? progressing(d) : undefined;
    });
    expect(pausedCondition).toMatchObject({ status: "Unknown", message: "Deployment is paused" });
    await c.patch(
      DEPLOYMENTS,
      "default",
      "paused",
      { spec: { replicas: 5, template: { spec: { containers: [{ name: "c", image: "v2" }] } } } },
      "application/strategic-merge-patch+json",
    );
    await eventually("the paused deployment scaled to 5 without a new ReplicaSet", async () => {
      const d = await c.get<Deployment>(DEPLOYMENTS, "default", "paused");
      const sets = await replicaSets(c, "paused");
      return d.status.observedGeneration === d.metadata?.generation &&
        d.status.availableReplicas === 5 &&
        sets.length === 1 &&
        byImage(sets)["v1"] === 5
        ? true
        : undefined;
    });

    await c.patch(DEPLOYMENTS, "default", "paused", { spec: { paused: false } }, MERGE);
    const done = await rolledOut(c, "paused");
    expect(progressing(done)?.reason).toBe("NewReplicaSetAvailable");
    expect(byImage(await replicaSets(c, "paused"))).toEqual({ v1: 0, v2: 5 });
  });

  // test/integration/deployment: TestFailedDeployment.
  it("reports Progressing=False ProgressDeadlineExceeded when no pod moves for progressDeadlineSeconds", async () => {
    const c = await start({ nodes: 1 });
    await c.create(DEPLOYMENTS, "default", deployment("stuck", { progressDeadlineSeconds: 1 }, { nodeSelector: { nowhere: "true" } }));
    const timedOut = await eventually("the deadline to pass", async () => {
      const d = await c.get<Deployment>(DEPLOYMENTS, "default", "stuck");
      return progressing(d)?.reason === "ProgressDeadlineExceeded" ? progressing(d) : undefined;
    });
    const [rs] = await replicaSets(c, "stuck");
    expect(timedOut).toMatchObject({ status: "False", message: `ReplicaSet "${rs!.metadata!.name!}" has timed out progressing.` });
  });

  // test/integration/deployment: TestDeploymentAvailableCondition (minReadySeconds).
  it("counts pods available only after minReadySeconds", async () => {
    const c = await start({ nodes: 1 });
    const created = Date.now();
    await c.create(DEPLOYMENTS, "default", deployment("slow-ready", { minReadySeconds: 2 }));
    const ready = await eventually("3 ready pods", async () => {
      const d = await c.get<Deployment>(DEPLOYMENTS, "default", "slow-ready");
      return d.status.readyReplicas === 3 ? d : undefined;
    });
    expect(ready.status.availableReplicas ?? 0).toBe(0);
    expect(ready.status.conditions?.find((x) => x.type === "Available")).toMatchObject({
      status: "False",
      reason: "MinimumReplicasUnavailable",
    });
    const available = await eventually("3 available pods", async () => {
      const d = await c.get<Deployment>(DEPLOYMENTS, "default", "slow-ready");
      return d.status.availableReplicas === 3 ? d : undefined;
    });
    // Condition times have whole seconds, so "ready for 2 s" is judged to within one.
    expect(Date.now() - created).toBeGreaterThanOrEqual(1000);
    expect(available.status.conditions?.find((x) => x.type === "Available")).toMatchObject({
      status: "True",
      reason: "MinimumReplicasAvailable",
    });
  });

  // test/e2e/apps/replica_set.go: testRSAdoptMatchingAndReleaseNotMatching.
  it("a ReplicaSet adopts a matching orphan and releases a pod that no longer matches", async () => {
    const c = await start({ nodes: 1 });
    await c.create(PODS, "default", {
      metadata: { name: "pod-adoption-release", labels: { name: "pod-adoption-release" } },
      spec: { containers: [{ name: "c", image: "x" }] },
    });
    await c.create(REPLICA_SETS, "default", {
      metadata: { name: "pod-adoption-release" },
      spec: {
        replicas: 1,
        selector: { matchLabels: { name: "pod-adoption-release" } },
        template: { metadata: { labels: { name: "pod-adoption-release" } }, spec: { containers: [{ name: "c", image: "x" }] } },
      },
    });
    const adopted = await eventually("the orphan to be adopted", async () => {
      const p = await c.get<Pod>(PODS, "default", "pod-adoption-release");
      return p.metadata?.ownerReferences?.find((r) => r.controller) ? p : undefined;
    });
    expect(adopted.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ kind: "ReplicaSet", name: "pod-adoption-release", controller: true, blockOwnerDeletion: true }),
    ]);
    // Adopted, not duplicated.
    await eventually("the ReplicaSet's status", async () =>
      (await c.get<ReplicaSet>(REPLICA_SETS, "default", "pod-adoption-release")).status.replicas === 1 ? true : undefined,
    );
    // (A pod the ReplicaSet made before it saw the orphan may linger while terminating.)
    expect((await c.list<Pod>(PODS, "default")).items.filter((p) => p.metadata?.deletionTimestamp === undefined)).toHaveLength(1);

    await c.patch(PODS, "default", "pod-adoption-release", { metadata: { labels: { name: "not-matching" } } }, MERGE);
    await eventually("the pod to be released and replaced", async () => {
      const p = await c.get<Pod>(PODS, "default", "pod-adoption-release");
      const owned = (await c.list<Pod>(PODS, "default", { labelSelector: "name=pod-adoption-release" })).items;
      return (p.metadata?.ownerReferences ?? []).length === 0 && owned.length === 1 ? true : undefined;
    });
  });

  // test/e2e/apps/deployment.go: testRollingUpdateDeployment ("RollingUpdateDeployment should
  // delete old pods and create new ones"). The adopted ReplicaSet's revision is beyond 2^53, so
  // the next one (…833) is exact only in integer arithmetic.
  it("RollingUpdateDeployment should delete old pods and create new ones", async () => {
    const c = await start({ nodes: 1 });
    const webserverImage = "registry.k8s.io/e2e-test-images/httpd:2.4.38-4";
    const agnhostImage = "registry.k8s.io/e2e-test-images/agnhost:2.53";
    const rsPodLabels = { name: "sample-pod", pod: "httpd" };
    await c.create(REPLICA_SETS, "default", {
      metadata: {
        name: "test-rolling-update-controller",
        labels: rsPodLabels,
        annotations: { "deployment.kubernetes.io/revision": "3546343826724305832" },
      },
      spec: {
        replicas: 1,
        selector: { matchLabels: rsPodLabels },
        template: {
          metadata: { labels: rsPodLabels },
          spec: { terminationGracePeriodSeconds: 0, containers: [{ name: "httpd", image: webserverImage }] },
        },
      },
    });
    await eventually("the replica set's pod running", async () =>
      (await c.list<Pod>(PODS, "default", { labelSelector: "name=sample-pod" })).items.some((p) => p.status.phase === "Running")
        ? true
        : undefined,
    );

    const podLabels = { name: "sample-pod" };
    await c.create(DEPLOYMENTS, "default", {
      metadata: { name: "test-rolling-update-deployment" },
      spec: {
        replicas: 1,
        selector: { matchLabels: podLabels },
        strategy: { type: "RollingUpdate" },
        template: {
          metadata: { labels: podLabels },
          spec: { terminationGracePeriodSeconds: 0, containers: [{ name: "agnhost", image: agnhostImage, securityContext: {} }] },
        },
      },
    });
    // WaitForDeploymentRevisionAndImage: the Deployment and its new ReplicaSet at the revision, with the image.
    await eventually("revision 3546343826724305833 with the agnhost image", async () => {
      const d = await c.get<Deployment>(DEPLOYMENTS, "default", "test-rolling-update-deployment");
      const newRS = (await c.list<ReplicaSet>(REPLICA_SETS, "default", { labelSelector: "name=sample-pod" })).items.find(
        (rs) => rs.spec.template.spec.containers[0]!.image === agnhostImage,
      );
      return d.metadata?.annotations?.["deployment.kubernetes.io/revision"] === "3546343826724305833" &&
        newRS?.metadata?.annotations?.["deployment.kubernetes.io/revision"] === "3546343826724305833"
        ? true
        : undefined;
    });
    await rolledOut(c, "test-rolling-update-deployment");
    const deploymentUid = (await c.get<Deployment>(DEPLOYMENTS, "default", "test-rolling-update-deployment")).metadata?.uid;
    const oldRSs = (await c.list<ReplicaSet>(REPLICA_SETS, "default")).items.filter(
      (rs) => rs.metadata?.ownerReferences?.[0]?.uid === deploymentUid && rs.spec.template.spec.containers[0]!.image !== agnhostImage,
    );
    expect(oldRSs.map((rs) => rs.metadata?.name)).toEqual(["test-rolling-update-controller"]);
  });

  // test/e2e/apps/deployment.go: testDeploymentsControllerRef.
  it("test Deployment ReplicaSet orphaning and adoption regarding controllerRef", async () => {
    const c = await start({ nodes: 1 });
    const first = await c.create<Deployment>(DEPLOYMENTS, "default", deployment("test-orphan-deployment", { replicas: 1 }));
    await rolledOut(c, "test-orphan-deployment");
    const [rs] = await replicaSets(c, "test-orphan-deployment");
    expect(rs!.metadata?.ownerReferences?.[0]?.uid).toBe(first.metadata?.uid);
    const pods = (await c.list<Pod>(PODS, "default")).items.map((p) => p.metadata?.name);

    await c.delete(DEPLOYMENTS, "default", "test-orphan-deployment", { propagationPolicy: "Orphan" });
    await eventually("the ReplicaSet to be orphaned", async () => {
      const [left] = await replicaSets(c, "test-orphan-deployment");
      return left !== undefined && (left.metadata?.ownerReferences ?? []).length === 0 ? true : undefined;
    });

    // A Deployment with the same selector adopts it: the same ReplicaSet and pods, none new.
    const second = await c.create<Deployment>(DEPLOYMENTS, "default", {
      ...deployment("test-adopt-deployment", { replicas: 1 }),
      spec: {
        ...deployment("x", { replicas: 1 }).spec,
        selector: { matchLabels: { app: "test-orphan-deployment" } },
        template: { metadata: { labels: { app: "test-orphan-deployment" } }, spec: { containers: [{ name: "c", image: "v1" }] } },
      },
    });
    await eventually("the ReplicaSet to be adopted", async () => {
      const [adopted] = await replicaSets(c, "test-orphan-deployment");
      return adopted?.metadata?.ownerReferences?.[0]?.uid === second.metadata?.uid ? true : undefined;
    });
    await rolledOut(c, "test-adopt-deployment");
    expect((await replicaSets(c, "test-orphan-deployment")).map((r) => r.metadata?.name)).toEqual([rs!.metadata?.name]);
    expect((await c.list<Pod>(PODS, "default")).items.map((p) => p.metadata?.name)).toEqual(pods);
  });
});
