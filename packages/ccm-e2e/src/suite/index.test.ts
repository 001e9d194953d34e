import { describe, expect, it } from "vitest";
import { labelsOf } from "../framework/registry.js";
import { SUITE } from "./index.js";

describe("the ported suite", () => {
  it("has unique names, each naming the upstream file it ports", () => {
    expect(new Set(SUITE.map((t) => t.name)).size).toBe(SUITE.length);
    for (const test of SUITE) expect(test.upstream).toMatch(/^test\/e2e\/(network|cloud)\/.+\.go$/);
  });

  it("tags every LoadBalancer test [Feature:LoadBalancer] and gates it on the loadBalancer capability", () => {
    const lbTests = SUITE.filter((t) => t.name.includes("LoadBalancers"));
    expect(lbTests.length).toBe(18);
    for (const test of lbTests) {
      expect(labelsOf(test.name)).toContain("Feature:LoadBalancer");
      expect(test.requires.capabilities).toContain("loadBalancer");
    }
  });

  it("gates the disruptive node tests on their driver hooks", () => {
    const disruptive = SUITE.filter((t) => labelsOf(t.name).includes("Disruptive"));
    expect(disruptive.map((t) => t.requires.hooks?.[0])).toEqual([
      "deleteInstance",
      "rebootInstance",
      "rebootInstance",
      "rebootInstance",
      "disruptNetwork",
      "disruptNetwork",
      "disruptNetwork",
      "rebootInstance",
    ]);
  });

  it("holds the tests the proposal lists, by their upstream names", () => {
    const names = SUITE.map((t) => t.name);
    for (const fragment of [
      "Nodes should be deleted on API server if it doesn't exist in the cloud provider",
      "[TCP] should be able to change the type and ports of the service [Slow]",
      "[UDP] should be able to change the type and ports of the service [Slow]",
      "should have session affinity work for LoadBalancer service with Local traffic policy [Slow] [LinuxOnly]",
      "should be able to switch session affinity for LoadBalancer service with Cluster traffic policy [Slow] [LinuxOnly]",
      "should handle load balancer cleanup finalizer for service [Slow]",
      "should be able to create LoadBalancer Service without NodePort and change it [Slow]",
      "should not have connectivity disruption during rolling update with externalTrafficPolicy=Local [Slow]",
      "ExternalTrafficPolicy: Local [Feature:LoadBalancer] [Slow] should only target nodes with endpoints",
      "should be possible to connect to a service via ExternalIP when the external IP is not assigned to a node",
      "should be able to update service type to NodePort listening on same port number but different protocols",
      "should be able to change the type from NodePort to ExternalName [Conformance]",
      "should release NodePorts on delete",
      "should delete a collection of services [Conformance]",
      "should fallback to local terminating endpoints when there are no ready endpoints with internalTrafficPolicy=Local",
      "should only allow access from service loadbalancer source ranges [Slow]",
      "should be able to create an internal type load balancer [Slow]",
      "ExternalTrafficPolicy: Local [Feature:LoadBalancer] [Slow] should work from pods",
      "should be able to preserve UDP traffic when server pod cycles for a LoadBalancer service on different nodes",
      "should be able to preserve UDP traffic when server pod cycles for a LoadBalancer service on the same nodes",
      "Restart [Disruptive] [KubeUp] should restart all nodes and ensure all nodes and pods recover",
      "Upgrade [Feature:Upgrade] master upgrade should maintain a functioning cluster [Feature:MasterUpgrade]",
      "Upgrade [Feature:Upgrade] cluster upgrade should maintain a functioning cluster [Feature:ClusterUpgrade]",
      "Downgrade [Feature:Downgrade] cluster downgrade should maintain a functioning cluster [Feature:ClusterDowngrade]",
    ]) {
      expect(
        names.filter((n) => n.includes(fragment)),
        fragment,
      ).toHaveLength(1);
    }
  });

  it("gates the upgrade tests on the upgrade capabilities and hooks, naming cluster_upgrade.go", () => {
    const upgrades = SUITE.filter((t) => /Feature:(Upgrade|Downgrade)/.test(t.name));
    expect(upgrades.map((t) => [t.upstream, t.requires])).toEqual([
      ["test/e2e/cloud/gcp/cluster_upgrade.go", { capabilities: ["controlPlaneUpgrade"], hooks: ["upgradeControlPlane"] }],
      [
        "test/e2e/cloud/gcp/cluster_upgrade.go",
        { capabilities: ["controlPlaneUpgrade", "nodeUpgrade"], hooks: ["upgradeControlPlane", "upgradeNodes"] },
      ],
      ["test/e2e/cloud/gcp/cluster_upgrade.go", { capabilities: ["downgrade"], hooks: ["downgrade"] }],
    ]);
  });
});
