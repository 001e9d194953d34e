import { isIPv4, isIPv6 } from "node:net";
import type { KubeObject } from "@kubekit/generic-controlplane";
import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../test/kubectl.js";
import { ClusterIPAllocator } from "./allocators/cluster-ip.js";
import { startSimCluster, type SimCluster } from "./cluster.js";
import { ENDPOINT_SLICES, type EndpointSlice } from "./resources/endpoint-slices.js";
import { ENDPOINTS, type Endpoints } from "./resources/endpoints.js";
import type { Node } from "./resources/nodes.js";
import type { Pod } from "./resources/pods.js";
import type { Service } from "./resources/services.js";
import { NODES, PODS, SERVICES } from "./refs.js";

// Ported from test/e2e/network/dual_stack.go: the assertions that need no container runtime.

const SERVICE_V4 = "10.96.0.0/16";
const SERVICE_V6 = "fd00:10:96::/112";
let cluster: SimCluster;
let client: KubeClient;

beforeAll(async () => {
  cluster = await startSimCluster({ nodes: 2, serviceCIDR: `${SERVICE_V4},${SERVICE_V6}` });
  client = new KubeClient({ server: cluster.url });
  // One pod per node behind the services below.
  for (const name of ["web-1", "web-2"]) {
    await client.create(PODS, "default", {
      metadata: { name, labels: { app: "web" } },
      spec: { containers: [{ name: "c", image: "agnhost", ports: [{ containerPort: 8080 }] }] },
    });
  }
});

afterAll(async () => {
  client?.close();
  await cluster?.close();
});

const family = (ip: string) => (isIPv4(ip) ? "IPv4" : isIPv6(ip) ? "IPv6" : "none");

async function runningPods(): Promise<Pod[]> {
  return eventually("both pods running with their addresses", async () => {
    const pods = (await client.list<Pod & KubeObject>(PODS, "default", { labelSelector: "app=web" })).items;
    return pods.length === 2 && pods.every((p) => p.status?.phase === "Running" && (p.status.podIPs ?? []).length === 2) ? pods : undefined;
  });
}

describe("[Feature:IPv6DualStack]", () => {
  it("should have ipv4 and ipv6 internal node ip", async () => {
    const nodes = (await client.list<Node & KubeObject>(NODES, undefined)).items;
    expect(nodes).toHaveLength(2);
    for (const node of nodes) {
      const internal = (node.status?.addresses ?? []).filter((a) => a.type === "InternalIP").map((a) => family(a.address));
      expect(internal).toEqual(["IPv4", "IPv6"]);
    }
  });

  it("should have ipv4 and ipv6 node podCIDRs", async () => {
    const nodes = (await client.list<Node & KubeObject>(NODES, undefined)).items;
    for (const node of nodes) {
      const cidrs = node.spec?.podCIDRs ?? [];
      expect(cidrs.map((c) => family(c.split("/")[0]!))).toEqual(["IPv4", "IPv6"]);
      expect(node.spec?.podCIDR).toBe(cidrs[0]);
    }
    // Each node its own ranges.
    expect(new Set(nodes.flatMap((n) => n.spec?.podCIDRs ?? [])).size).toBe(4);
  });

  it("should create pod, add ipv6 and ipv4 ip to pod ips (and host ips), each from its node's ranges", async () => {
    const nodes = new Map((await client.list<Node & KubeObject>(NODES, undefined)).items.map((n) => [n.metadata?.name ?? "", n]));
    for (const pod of await runningPods()) {
      const ips = (pod.status?.podIPs ?? []).map((p) => p.ip);
      expect(ips.map(family)).toEqual(["IPv4", "IPv6"]);
      expect(pod.status?.podIP).toBe(ips[0]);
      const node = nodes.get(pod.spec?.nodeName ?? "")!;
      node.spec!.podCIDRs!.forEach((cidr, i) => {
        const range = new ClusterIPAllocator(cidr);
        expect(range.contains(ips[i]!)).toBe(true);
      });
      const hostIPs = (pod.status?.["hostIPs"] as Array<{ ip: string }>).map((h) => h.ip);
      expect(hostIPs).toEqual((node.status?.addresses ?? []).filter((a) => a.type === "InternalIP").map((a) => a.address));
    }
  });

  // validateServiceAndClusterIPFamily plus the EndpointSlices the e2e waits for per family.
  const cases: Array<{ title: string; spec: Record<string, unknown>; families: string[]; policy: string }> = [
    {
      title: "should create a single stack service with cluster ip from primary service range",
      spec: {},
      families: ["IPv4"],
      policy: "SingleStack",
    },
    { title: "should create service with ipv4 cluster ip", spec: { ipFamilies: ["IPv4"] }, families: ["IPv4"], policy: "SingleStack" },
    { title: "should create service with ipv6 cluster ip", spec: { ipFamilies: ["IPv6"] }, families: ["IPv6"], policy: "SingleStack" },
    {
      title: "should create service with ipv4,v6 cluster ip",
      spec: { ipFamilyPolicy: "RequireDualStack", ipFamilies: ["IPv4", "IPv6"] },
      families: ["IPv4", "IPv6"],
      policy: "RequireDualStack",
    },
    {
      title: "should create service with ipv6,v4 cluster ip",
      spec: { ipFamilyPolicy: "RequireDualStack", ipFamilies: ["IPv6", "IPv4"] },
      families: ["IPv6", "IPv4"],
      policy: "RequireDualStack",
    },
  ];
  cases.forEach(({ title, spec, families, policy }, i) => {
    it(title, async () => {
      const pods = await runningPods();
      const name = `svc-${i}`;
      const service = await client.create<Service & KubeObject>(SERVICES, "default", {
        metadata: { name },
        spec: { selector: { app: "web" }, ports: [{ port: 80, targetPort: 8080 }], ...spec },
      });
      expect(service.spec?.ipFamilies).toEqual(families);
      expect(service.spec?.ipFamilyPolicy).toBe(policy);
      expect(service.spec?.clusterIPs?.map(family)).toEqual(families);
      expect(service.spec?.clusterIP).toBe(service.spec?.clusterIPs?.[0]);
      service.spec!.clusterIPs!.forEach((ip) =>
        expect(new ClusterIPAllocator(family(ip) === "IPv4" ? SERVICE_V4 : SERVICE_V6).contains(ip)).toBe(true),
      );

      const slices = await eventually(`${name}'s slices of each family to hold both pods`, async () => {
        const all = (
          await client.list<EndpointSlice & KubeObject>(ENDPOINT_SLICES, "default", { labelSelector: `kubernetes.io/service-name=${name}` })
        ).items;
        return all.length === families.length && all.every((s) => (s.endpoints ?? []).length === 2) ? all : undefined;
      });
      expect(slices.map((s) => s.addressType).sort()).toEqual([...families].sort());
      for (const slice of slices) {
        const want = pods.map((p) => p.status!.podIPs!.map((x) => x.ip).find((ip) => family(ip) === slice.addressType)).sort();
        expect((slice.endpoints ?? []).flatMap((e) => e.addresses).sort()).toEqual(want);
      }
      // Endpoints list the primary family only.
      const endpoints = await eventually(`${name}'s Endpoints`, async () => {
        const got = await client.get<Endpoints & KubeObject>(ENDPOINTS, "default", name);
        return (got.subsets?.[0]?.addresses ?? []).length === 2 ? got : undefined;
      });
      expect(endpoints.subsets![0]!.addresses!.map((a) => family(a.ip))).toEqual([families[0], families[0]]);
    });
  });

  it("upgrades a single-stack service to dual-stack and gets the second family's slices; downgrading drops them", async () => {
    await runningPods();
    await client.create(SERVICES, "default", {
      metadata: { name: "grow" },
      spec: { selector: { app: "web" }, ports: [{ port: 80, targetPort: 8080 }] },
    });
    const upgraded = await client.patch<Service & KubeObject>(
      SERVICES,
      "default",
      "grow",
      { spec: { ipFamilyPolicy: "PreferDualStack" } },
      "application/merge-patch+json",
    );
    expect(upgraded.spec?.clusterIPs?.map(family)).toEqual(["IPv4", "IPv6"]);
    const types = async () =>
      (
        await client.list<EndpointSlice & KubeObject>(ENDPOINT_SLICES, "default", { labelSelector: "kubernetes.io/service-name=grow" })
      ).items
        .map((s) => s.addressType)
        .sort()
        .join(",");
    await eventually("slices of both families", async () => ((await types()) === "IPv4,IPv6" ? true : undefined));
    const downgraded = await client.patch<Service & KubeObject>(
      SERVICES,
      "default",
      "grow",
      { spec: { ipFamilyPolicy: "SingleStack" } },
      "application/merge-patch+json",
    );
    expect(downgraded.spec?.clusterIPs).toEqual([upgraded.spec!.clusterIPs![0]]);
    await eventually("the IPv6 slice to go", async () => ((await types()) === "IPv4" ? true : undefined));
  });
});
