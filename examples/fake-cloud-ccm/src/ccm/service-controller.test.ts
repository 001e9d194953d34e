import { LOAD_BALANCER_CLEANUP_FINALIZER } from "@kubekit/ccm-e2e";
import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { startSimCluster, type SimCluster } from "@kubekit/sim-cluster";
import { afterEach, describe, expect, it } from "vitest";
import { FakeCloud } from "../cloud/fake-cloud.js";
import { listenerKey } from "../cloud/load-balancers.js";
import type { Fault } from "../faults.js";
import { startMiniCcm, type MiniCcm } from "./mini-ccm.js";
import { SERVICES, type NodeObject, type PodObject, type ServiceObject } from "./objects.js";
import { loadBalancerSpec } from "./service-controller.js";

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("service controller against sim-cluster", () => {
  let cluster: SimCluster | undefined;
  let client: KubeClient | undefined;
  let cloud: FakeCloud | undefined;
  let ccm: MiniCcm | undefined;
  afterEach(async () => {
    await ccm?.stop();
    await cloud?.close();
    client?.close();
    await cluster?.close();
  });

  async function start(fault?: Fault): Promise<KubeClient> {
    cluster = await startSimCluster({ nodes: 2 });
    client = new KubeClient({ server: cluster.url });
    cloud = new FakeCloud();
    ccm = startMiniCcm({ client, cloud, ...(fault === undefined ? {} : { fault }) });
    return client;
  }

  const finalizers = async (c: KubeClient) => (await c.get<ServiceObject>(SERVICES, "default", "web")).metadata.finalizers ?? [];

  /** LoadBalancer, then ClusterIP: resolves once the finalizer and the cloud LB are as `expected` after the change. */
  async function lifecycle(expected: { finalizer: boolean; loadBalancer: boolean }, fault?: Fault): Promise<void> {
    const c = await start(fault);
    const service = await c.create<ServiceObject>(SERVICES, "default", {
      metadata: { name: "web" },
      spec: { type: "LoadBalancer", ports: [{ port: 80 }] },
    });
    const lbName = `a${service.metadata.uid.replaceAll("-", "")}`.slice(0, 32);
    await until("the finalizer", async () => ((await finalizers(c)).includes(LOAD_BALANCER_CLEANUP_FINALIZER) ? true : undefined));
    const lb = await until("the cloud load balancer", () => cloud!.loadBalancers.get(lbName));
    expect(lb.ports).toEqual([{ port: 80, protocol: "TCP", nodePort: service.spec.ports![0]!.nodePort }]);
    expect(lb.backendNodes.sort()).toEqual(["sim-node-1", "sim-node-2"]);
    // As kube-apiserver drops them on a type change (sim-cluster does not yet): NodePorts and the traffic policy go.
    await c.patch(SERVICES, "default", "web", {
      spec: { type: "ClusterIP", externalTrafficPolicy: null, ports: [{ port: 80, protocol: "TCP", targetPort: 80 }] },
    });
    await until(
      `finalizer ${expected.finalizer ? "kept" : "removed"} and load balancer ${expected.loadBalancer ? "kept" : "deleted"}`,
      async () =>
        (await finalizers(c)).includes(LOAD_BALANCER_CLEANUP_FINALIZER) === expected.finalizer &&
        (cloud!.loadBalancers.get(lbName) !== undefined) === expected.loadBalancer
          ? true
          : undefined,
    );
  }

  it("adds the cleanup finalizer and a load balancer, and removes both when the type changes away", async () => {
    await lifecycle({ finalizer: false, loadBalancer: false });
  });

  it("with keep-finalizer, deletes the load balancer but keeps the finalizer", async () => {
    await lifecycle({ finalizer: true, loadBalancer: false }, "keep-finalizer");
  });

  it("with leak-load-balancers, removes the finalizer but leaves the load balancer", async () => {
    await lifecycle({ finalizer: false, loadBalancer: true }, "leak-load-balancers");
  });
});

describe("loadBalancerSpec", () => {
  const node = (name: string, ip: string): NodeObject => ({
    metadata: { name },
    status: { conditions: [{ type: "Ready", status: "True" }], addresses: [{ type: "InternalIP", address: ip }] },
  });
  const pod = (name: string, nodeName: string, ip: string): PodObject => ({
    metadata: { name, namespace: "ns", labels: { app: "web" } },
    spec: { nodeName },
    status: { phase: "Running", podIP: ip, conditions: [{ type: "Ready", status: "True" }] },
  });
  const nodes = [node("n1", "127.1.0.1"), node("n2", "127.1.0.2"), node("n3", "127.1.0.3")];
  const pods = [pod("p1", "n2", "127.2.0.1")];
  const service = (spec: Partial<ServiceObject["spec"]>): ServiceObject => ({
    metadata: { name: "web", namespace: "ns", uid: "u" },
    spec: { type: "LoadBalancer", selector: { app: "web" }, ports: [{ port: 53, protocol: "UDP", nodePort: 30053 }], ...spec },
  });

  it("sends ETP Local traffic only to nodes with a ready endpoint", () => {
    const spec = loadBalancerSpec("a", service({ externalTrafficPolicy: "Local" }), nodes, pods);
    expect(spec.backendNodes).toEqual(["n2"]);
    expect(spec.targets.get("53/UDP")).toEqual([{ name: "n2", address: "127.1.0.2", port: 30053 }]);
    expect(loadBalancerSpec("a", service({ externalTrafficPolicy: "Local" }), nodes, pods, "etp-local-all-nodes").backendNodes).toEqual([
      "n1",
      "n2",
      "n3",
    ]);
  });

  it("sends to the pods when no NodePort is allocated", () => {
    const spec = loadBalancerSpec("a", service({ ports: [{ port: 80, protocol: "TCP", targetPort: 8080 }] }), nodes, pods);
    expect(spec.targets.get(listenerKey(80, "TCP"))).toEqual([{ name: "p1", address: "127.2.0.1", port: 8080 }]);
  });

  it("carries the protocol and affinity unless built with the faults that drop them", () => {
    const affine = service({ sessionAffinity: "ClientIP" });
    expect(loadBalancerSpec("a", affine, nodes, pods)).toMatchObject({
      ports: [{ port: 53, protocol: "UDP", nodePort: 30053 }],
      sessionAffinity: "ClientIP",
    });
    expect(loadBalancerSpec("a", affine, nodes, pods, "ignore-protocol").ports).toEqual([{ port: 53, protocol: "TCP", nodePort: 30053 }]);
    expect(loadBalancerSpec("a", affine, nodes, pods, "drop-session-affinity").sessionAffinity).toBe("None");
  });
});
