import { afterEach, describe, expect, it } from "vitest";
import { startSimCluster, type SimCluster } from "./cluster.js";

let cluster: SimCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

/** Requests flow control dispatched per priority level and flow schema (`apiserver_flowcontrol_dispatched_requests_total`). */
async function dispatched(url: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (!line.startsWith("apiserver_flowcontrol_dispatched_requests_total{")) continue;
    const level = /priority_level="([^"]*)"/.exec(line)?.[1];
    const schema = /flow_schema="([^"]*)"/.exec(line)?.[1];
    out.set(`${level}/${schema}`, (out.get(`${level}/${schema}`) ?? 0) + Number(line.split(" ").pop()));
  }
  return out;
}

describe("the cluster's components before flow control", { timeout: 20_000 }, () => {
  it("are kubelets and controllers in upstream's priority levels, not anonymous clients", async () => {
    cluster = await startSimCluster({ nodes: 2 });
    const levels = await dispatched(cluster.url);
    // Each kubelet's Node and Lease writes: system:nodes in node-high.
    expect(levels.get("node-high/system-node-high") ?? 0).toBeGreaterThan(0);
    // The scheduler's and controllers' lists: kube-controller-manager in workload-high.
    expect(levels.get("workload-high/kube-controller-manager") ?? 0).toBeGreaterThan(0);
  });

  it("leaves every other client anonymous, in global-default", async () => {
    cluster = await startSimCluster({ nodes: 1 });
    const before = (await dispatched(cluster.url)).get("global-default/global-default") ?? 0;
    const answer = await fetch(`${cluster.url}/api/v1/namespaces/default`, { headers: { authorization: "Bearer not-a-component" } });
    expect(answer.status).toBe(200);
    expect((await dispatched(cluster.url)).get("global-default/global-default") ?? 0).toBeGreaterThan(before);
  });
});
