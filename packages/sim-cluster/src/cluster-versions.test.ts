import type { KubeObject } from "@kubekit/generic-controlplane";
import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../test/kubectl.js";
import { startSimCluster, type SimCluster } from "./cluster.js";
import { NODES, PODS } from "./refs.js";

type Node = KubeObject & { status: { nodeInfo: { kubeletVersion: string; kubeProxyVersion: string; bootID: string } } };
type Pod = KubeObject & { status: { phase?: string; containerStatuses?: Array<{ restartCount: number }> } };

let cluster: SimCluster | undefined;
let client: KubeClient | undefined;
afterEach(async () => {
  client?.close();
  client = undefined;
  await cluster?.close();
  cluster = undefined;
});

async function serverVersion(url: string): Promise<Record<string, string>> {
  const response = await fetch(`${url}/version`);
  return (await response.json()) as Record<string, string>;
}

describe("the versions a simulated cluster reports", () => {
  it("reports the version set for the control plane at /version, as after an upgrade", async () => {
    cluster = await startSimCluster({ nodes: 1 });
    expect((await serverVersion(cluster.url)).gitVersion).toMatch(/^v1\.32\.0\+kubekit-/);
    cluster.setVersion("1.33.1");
    expect(await serverVersion(cluster.url)).toMatchObject({ major: "1", minor: "33", gitVersion: "v1.33.1" });
    cluster.setVersion("v1.31.4");
    expect(await serverVersion(cluster.url)).toMatchObject({ major: "1", minor: "31", gitVersion: "v1.31.4" });
    expect(() => cluster!.setVersion("latest")).toThrow(/invalid version "latest"/);
  });

  it("upgrades a node in place: the kubelet comes back at the new version with a new boot ID and its containers restarted", async () => {
    cluster = await startSimCluster({ nodes: 2 });
    client = new KubeClient({ server: cluster.url });
    await client.create(PODS, "default", {
      metadata: { name: "p" },
      spec: { nodeName: "sim-node-1", containers: [{ name: "c", image: "x" }] },
    });
    await eventually("the pod to run", async () =>
      (await client!.get<Pod>(PODS, "default", "p")).status.phase === "Running" ? true : undefined,
    );
    const before = await client.get<Node>(NODES, undefined, "sim-node-1");
    expect(before.status.nodeInfo.kubeletVersion).toBe("v1.32.0");

    await cluster.upgradeNode("sim-node-1", "v1.33.1");
    const after = await client.get<Node>(NODES, undefined, "sim-node-1");
    expect(after.status.nodeInfo).toMatchObject({ kubeletVersion: "v1.33.1", kubeProxyVersion: "v1.33.1" });
    expect(after.status.nodeInfo.bootID).not.toBe(before.status.nodeInfo.bootID);
    expect((await client.get<Node>(NODES, undefined, "sim-node-2")).status.nodeInfo.kubeletVersion).toBe("v1.32.0");
    await eventually("the pod's container to restart", async () =>
      (await client!.get<Pod>(PODS, "default", "p")).status.containerStatuses?.[0]?.restartCount === 1 ? true : undefined,
    );

    // A stopped node keeps its version when it starts again.
    await cluster.stopNode("sim-node-1");
    await cluster.startNode("sim-node-1");
    expect((await client.get<Node>(NODES, undefined, "sim-node-1")).status.nodeInfo.kubeletVersion).toBe("v1.33.1");
    await expect(cluster.upgradeNode("sim-node-1", "1.34")).rejects.toThrow(/invalid kubelet version "1.34"/);
  }, 30_000);
});
