// Port of test/e2e/apps/replica_set.go, ReplicaSet "should serve a basic image on each replica with
// a public image" (conformance: Replica Set, run basic image), testReplicaSetServeImageOrFail: a
// ReplicaSet of agnhost serve-hostname, each pod Ready, then each pod reached through the API
// server's pods/proxy (e2epod.WaitForPodsResponding) answering its own name. Traffic mode gives the
// pods an address that answers.
import { randomUUID } from "node:crypto";
import type { KubeObject } from "@kubekit/generic-controlplane";
import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimCluster, type SimCluster } from "../src/index.js";
import { PODS, REPLICA_SETS } from "../src/refs.js";
import { eventually } from "./kubectl.js";

let cluster: SimCluster;
let client: KubeClient;

beforeAll(async () => {
  cluster = await startSimCluster({ nodes: 2, traffic: true });
  client = new KubeClient({ server: cluster.url });
});

afterAll(async () => {
  client?.close();
  await cluster?.close();
});

type Pod = KubeObject & {
  metadata: { name: string; deletionTimestamp?: string };
  status?: { conditions?: Array<{ type: string; status: string }> };
};

/** newRS(rsName, replicas, rsPodLabels, imageName, image, args). */
function newRS(
  rsName: string,
  replicas: number,
  rsPodLabels: Record<string, string>,
  imageName: string,
  image: string,
  args: string[],
): KubeObject {
  return {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: { name: rsName },
    spec: {
      selector: { matchLabels: rsPodLabels },
      replicas,
      template: { metadata: { labels: rsPodLabels }, spec: { containers: [{ name: imageName, image, args }] } },
    },
  };
}

describe("ReplicaSet", { timeout: 60_000 }, () => {
  it("should serve a basic image on each replica with a public image", async () => {
    const ns = "default";
    const name = `my-hostname-basic-${randomUUID()}`;
    const replicas = 1;
    const rs = newRS(name, replicas, { name }, name, "registry.k8s.io/e2e-test-images/agnhost:2.53", ["serve-hostname"]);
    (rs as { spec: { template: { spec: { containers: Array<{ ports?: unknown }> } } } }).spec.template.spec.containers[0]!.ports = [
      { containerPort: 9376 },
    ];
    await client.create(REPLICA_SETS, ns, rs);

    // e2epod.PodsCreated: the ReplicaSet's pods, by its label.
    const pods = await eventually("the pods created", async () => {
      const list = (await client.list<Pod>(PODS, ns, { labelSelector: `name=${name}` })).items;
      return list.length === replicas ? list : undefined;
    });

    // Ensuring each pod is running and Ready.
    let running = 0;
    for (const pod of pods) {
      if (pod.metadata.deletionTimestamp) continue;
      await eventually(`pod ${pod.metadata.name} Ready`, async () => {
        const current = await client.get<Pod>(PODS, ns, pod.metadata.name);
        return current.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ? true : undefined;
      });
      running++;
    }
    expect(running, "unexpected number of running pods").toBe(replicas);

    // e2epod.WaitForPodsResponding(checkHostname=true): GET pods/<name>/proxy answers the pod's name.
    for (const pod of pods) {
      const body = await eventually(`pod ${pod.metadata.name} responding`, async () => {
        const response = await fetch(`${cluster.url}/api/v1/namespaces/${ns}/pods/${pod.metadata.name}/proxy`);
        return response.ok ? await response.text() : undefined;
      });
      expect(body).toBe(pod.metadata.name);
    }
  });
});
