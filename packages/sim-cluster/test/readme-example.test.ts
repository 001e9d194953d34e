import type { KubeObject } from "@kubekit/generic-controlplane";
import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterEach, expect, it } from "vitest";
import { startSimCluster, type SimCluster } from "../src/index.js";
import { eventually } from "./kubectl.js";

let cluster: SimCluster | undefined;
let client: KubeClient | undefined;
afterEach(async () => {
  client?.close();
  await cluster?.close();
});

const PODS = { group: "", version: "v1", resource: "pods", namespaced: true };
const deployments = { group: "apps", version: "v1", resource: "deployments", namespaced: true };

type Pod = KubeObject & {
  spec: { nodeName?: string };
  status: { phase?: string; podIP?: string; hostIP?: string };
};

it("runs the README example: 3 pods Running over 3 nodes with IPs from each node's pod range", async () => {
  cluster = await startSimCluster({ nodes: 3 });
  client = new KubeClient({ server: cluster.url });
  await client.create(deployments, "default", {
    metadata: { name: "web" },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: "web" } },
      template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image: "nginx" }] } },
    },
  });
  const pods = await eventually("3 running pods", async () => {
    const list = await client!.list<Pod>(PODS, "default", { labelSelector: "app=web" });
    return list.items.length === 3 && list.items.every((p) => p.status.phase === "Running") ? list.items : undefined;
  });
  expect(new Set(pods.map((p) => p.spec.nodeName))).toEqual(new Set(cluster.nodes));
  for (const pod of pods) {
    const index = Number(pod.spec.nodeName!.slice("sim-node-".length)) - 1;
    expect(pod.status.podIP).toMatch(new RegExp(`^10\\.244\\.${index}\\.`));
    expect(pod.status.hostIP).toBe(`172.18.0.${index + 2}`);
  }
});
