import { createControlPlane, type ControlPlane } from "@kubekit/generic-controlplane";
import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterEach, expect, it } from "vitest";
import { allocate, claim, createWhoisCache, install, runArbiter, type Arbiter } from "../src/kube/index.js";

let plane: ControlPlane | undefined;
let client: KubeClient | undefined;
let arbiter: Arbiter | undefined;
afterEach(async () => {
  await arbiter?.stop();
  client?.close();
  await plane?.close();
});

it("runs the README's On Kubernetes example", async () => {
  plane = await createControlPlane({ host: "127.0.0.1", port: 0, processMetrics: false });
  client = new KubeClient(plane.url);
  await install(client, { clusterRoles: false });
  arbiter = await runArbiter({ config: plane.url });

  const pods = await claim(client, {
    metadata: { name: "pod-network" },
    spec: { addressSpace: [{ reference: { group: "", resource: "pods" }, prefix: "10.244.0.0/16", delegateTo: ["kubelet"] }] },
  });
  expect([pods.status?.phase, pods.status?.sequence]).toEqual(["Allocated", 1]);

  const cni = await claim(client, {
    metadata: { name: "cni" },
    spec: { addressSpace: [{ reference: { group: "cilium.io", resource: "ciliumnodes" }, prefix: "10.244.128.0/17" }] },
  });
  expect([cni.status?.phase, cni.status?.addressSpace?.[0]?.conflict?.message]).toEqual([
    "Conflict",
    "10.244.128.0/17 is inside 10.244.0.0/16 allocated to pod-network (pods); nearest free /17: 10.245.0.0/17",
  ]);

  const node = await allocate(client, {
    claim: "kubelet",
    pool: "10.244.0.0/16",
    prefixLength: 24,
    reference: { group: "", resource: "nodes", name: "node-1" },
    strategy: "first-fit",
  });
  expect(node.status?.prefix).toBe("10.244.0.0/24");

  const cache = await createWhoisCache(client);
  expect(cache.whois("10.244.0.7").mostSpecific?.claim).toBe("kubelet");
  await cache.close();
});
