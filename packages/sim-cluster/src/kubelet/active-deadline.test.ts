// Port of test/e2e/common/node/pods.go, Pods "should allow activeDeadlineSeconds to be updated"
// (conformance: Pods, ActiveDeadlineSeconds): the kubelet fails a pod that has been active on its
// node longer than spec.activeDeadlineSeconds, with reason DeadlineExceeded.
import { randomUUID } from "node:crypto";
import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../../test/kubectl.js";
import { startSimCluster, type SimCluster } from "../cluster.js";
import type { Pod } from "../resources/pods.js";
import { PODS } from "../refs.js";

let cluster: SimCluster | undefined;
let client: KubeClient | undefined;
afterEach(async () => {
  client?.close();
  client = undefined;
  await cluster?.close();
  cluster = undefined;
});

describe("Pods", { timeout: 30_000 }, () => {
  it("should allow activeDeadlineSeconds to be updated", async () => {
    cluster = await startSimCluster({ nodes: 1 });
    client = new KubeClient({ server: cluster.url });
    const podClient = client;
    const ns = "default";
    const name = `pod-update-activedeadlineseconds-${randomUUID()}`;
    const value = String(process.hrtime()[1]);
    // MustMixinRestrictedPodSecurity's additions are part of upstream's object.
    await podClient.create(PODS, ns, {
      metadata: { name, labels: { name: "foo", time: value } },
      spec: {
        securityContext: { runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: "RuntimeDefault" } },
        containers: [
          {
            name: "pause",
            image: "registry.k8s.io/pause:3.10",
            securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
          },
        ],
      },
    });
    // CreateSync: until Running.
    await eventually("the pod running", async () =>
      (await podClient.get<Pod>(PODS, ns, name)).status?.phase === "Running" ? true : undefined,
    );

    const pods = await podClient.list<Pod>(PODS, ns, { labelSelector: `time=${value}` });
    expect(pods.items).toHaveLength(1);

    // podClient.Update: newDeadline := int64(5).
    const pod = await podClient.get<Pod>(PODS, ns, name);
    await podClient.update(PODS, ns, { ...pod, spec: { ...pod.spec, activeDeadlineSeconds: 5 } });

    // WaitForPodTerminatedInNamespace(pod, "DeadlineExceeded").
    const terminated = await eventually(
      "the pod terminated with reason DeadlineExceeded",
      async () => {
        const p = await podClient.get<Pod>(PODS, ns, name);
        return (p.status?.phase === "Failed" || p.status?.phase === "Succeeded") && p.status.reason === "DeadlineExceeded" ? p : undefined;
      },
      15_000,
    );
    expect(terminated.status).toMatchObject({
      phase: "Failed",
      reason: "DeadlineExceeded",
      message: "Pod was active on the node longer than the specified deadline",
    });
    expect(terminated.status?.containerStatuses?.[0]?.state).toHaveProperty("terminated");
    expect(terminated.status?.conditions?.find((c) => c.type === "Ready")).toMatchObject({ status: "False" });
  });
});
