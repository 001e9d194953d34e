import { afterEach, describe, expect, it } from "vitest";
import {
  controllerManagerFlagsFromArgs,
  importControllerManagerFlags,
  importNodePodCIDRs,
  importObservedSpace,
  importServiceCIDRs,
} from "./index.js";
import { NODES, node, SERVICE_CIDRS, serveServiceCIDRs, serviceCIDR, startKubeTestCluster, type KubeTestCluster } from "./test-plane.js";

let cluster: KubeTestCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

describe("importNodePodCIDRs", () => {
  it("reads every node's pod CIDRs (dual-stack too) owned by the node, across pages", async () => {
    cluster = await startKubeTestCluster();
    const { client } = cluster;
    await client.create(NODES, undefined, node("node-a", ["10.244.0.0/24", "fd00:10:244::/64"]));
    await client.create(NODES, undefined, node("node-b", ["10.244.1.0/24"]));
    await client.create(NODES, undefined, node("node-c"));
    for (let i = 0; i < 4; i++) await client.create(NODES, undefined, node(`many-${i}`, [`10.244.${10 + i}.0/24`]));
    const result = await importNodePodCIDRs(client, { pageSize: 2 });
    expect(result.problems).toEqual([]);
    expect(result.skipped).toBeUndefined();
    expect(result.ranges.map((r) => [r.source.name, r.prefix])).toEqual([
      ["many-0", "10.244.10.0/24"],
      ["many-1", "10.244.11.0/24"],
      ["many-2", "10.244.12.0/24"],
      ["many-3", "10.244.13.0/24"],
      ["node-a", "10.244.0.0/24"],
      ["node-a", "fd00:10:244::/64"],
      ["node-b", "10.244.1.0/24"],
    ]);
    const a = result.ranges.find((r) => r.source.name === "node-a")!;
    expect(a).toMatchObject({ use: "pods", source: { kind: "Node", name: "node-a" }, description: "pods of node node-a", warnings: [] });
    expect(a.reference).toMatchObject({ group: "", resource: "nodes", name: "node-a" });
    expect(a.reference.uid).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("importServiceCIDRs", () => {
  it("says ServiceCIDRs are not served when discovery does not list them", async () => {
    cluster = await startKubeTestCluster();
    const result = await importServiceCIDRs(cluster.client);
    expect(result.ranges).toEqual([]);
    expect(result.skipped).toBe(
      "ServiceCIDRs (networking.k8s.io) are not served by this API server; pass --service-cluster-ip-range to check the service range",
    );
  });

  it("reads every ServiceCIDR's ranges where they are served, reading legacy spellings with a warning", async () => {
    cluster = await startKubeTestCluster();
    const { client } = cluster;
    await serveServiceCIDRs(client);
    await client.create(SERVICE_CIDRS, undefined, serviceCIDR("kubernetes", ["10.96.0.0/16", "fd00:10:96::/112"]));
    await client.create(SERVICE_CIDRS, undefined, serviceCIDR("extra", ["10.97.0.1/24"]));
    await client.create(SERVICE_CIDRS, undefined, serviceCIDR("broken", ["not-a-cidr"]));
    const result = await importServiceCIDRs(client);
    expect(result.skipped).toBeUndefined();
    expect(result.ranges.map((r) => `${r.source.name} ${r.prefix}`)).toEqual([
      "extra 10.97.0.0/24",
      "kubernetes 10.96.0.0/16",
      "kubernetes fd00:10:96::/112",
    ]);
    expect(result.ranges[0]).toMatchObject({
      use: "services",
      reference: { group: "", resource: "services" },
      source: { kind: "ServiceCIDR", name: "extra" },
    });
    expect(result.ranges[0]!.warnings).toEqual([
      'ServiceCIDR extra spec.cidrs[0]: "10.97.0.1/24" is not canonical (host-bits-set); read as 10.97.0.0/24',
    ]);
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatch(/^ServiceCIDR broken spec\.cidrs\[0\]: /);
  });
});

describe("kube-controller-manager flags", () => {
  it("reads a dual-stack --cluster-cidr and --service-cluster-ip-range", () => {
    const result = importControllerManagerFlags({ clusterCIDR: "10.244.0.0/16,fd00:10:244::/56", serviceClusterIPRange: "10.96.0.0/12" });
    expect(result.problems).toEqual([]);
    expect(result.ranges.map((r) => [r.use, r.prefix, r.source.name])).toEqual([
      ["pods", "10.244.0.0/16", "--cluster-cidr"],
      ["pods", "fd00:10:244::/56", "--cluster-cidr"],
      ["services", "10.96.0.0/12", "--service-cluster-ip-range"],
    ]);
    expect(result.ranges[0]!.reference).toEqual({ group: "", resource: "pods" });
  });

  it("refuses what kube-controller-manager refuses: three CIDRs, two of one family, a broken CIDR", () => {
    expect(importControllerManagerFlags({ clusterCIDR: "10.0.0.0/16,10.1.0.0/16" }).problems).toEqual([
      "--cluster-cidr: 10.0.0.0/16,10.1.0.0/16: two CIDRs must be dual-stack (one IPv4 and one IPv6)",
    ]);
    expect(importControllerManagerFlags({ clusterCIDR: "10.0.0.0/16,fd00::/64,10.1.0.0/16" }).problems[0]).toMatch(/at most two CIDRs/);
    const broken = importControllerManagerFlags({ clusterCIDR: "10.0.0.0/16,10.0.0.0/33" });
    expect(broken.ranges).toEqual([]);
    expect(broken.problems).toEqual([expect.stringMatching(/^--cluster-cidr\[1\]: .*10\.0\.0\.0\/33/)]);
    const sloppy = importControllerManagerFlags({ serviceClusterIPRange: "10.96.0.1/12" });
    expect(sloppy.ranges[0]!.prefix).toBe("10.96.0.0/12");
    expect(sloppy.ranges[0]!.warnings[0]).toContain("--service-cluster-ip-range: ");
  });

  it("picks the flags out of a kube-controller-manager command line", () => {
    const args = [
      "kube-controller-manager",
      "--allocate-node-cidrs=true",
      "--cluster-cidr=10.244.0.0/16",
      "--service-cluster-ip-range",
      "10.96.0.0/12",
      "--node-cidr-mask-size=24",
    ];
    expect(controllerManagerFlagsFromArgs(args)).toEqual({ clusterCIDR: "10.244.0.0/16", serviceClusterIPRange: "10.96.0.0/12" });
  });
});

describe("importObservedSpace", () => {
  it("combines the importers and says which uses were observed", async () => {
    cluster = await startKubeTestCluster();
    await cluster.client.create(NODES, undefined, node("node-a", ["10.244.0.0/24"]));
    const space = await importObservedSpace(cluster.client, {});
    expect(space.observedUses).toEqual(["pods"]);
    expect(space.skipped).toHaveLength(1);
    const withFlags = await importObservedSpace(cluster.client, { serviceClusterIPRange: "10.96.0.0/12", clusterCIDR: "10.244.0.0/16" });
    expect(withFlags.observedUses).toEqual(["services", "pods"]);
    expect(withFlags.ranges.map((r) => r.prefix)).toEqual(["10.244.0.0/24", "10.244.0.0/16", "10.96.0.0/12"]);
  });
});
