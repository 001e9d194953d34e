import { afterEach, describe, expect, it } from "vitest";
import { servedRequests } from "../../test/metrics.js";
import { startSimCluster, type SimCluster } from "../cluster.js";

let cluster: SimCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

/** GETs of single Nodes the server answered. */
function nodeGets(url: string): Promise<number> {
  return servedRequests(url, (l) => l.includes('verb="GET"') && l.includes('resource="nodes"') && l.includes('subresource=""'));
}

describe("kubelets of one cluster", { timeout: 20_000 }, () => {
  it("read their Nodes between reports from one shared watch, not a GET per renewal", async () => {
    cluster = await startSimCluster({ nodes: 3, leaseRenewIntervalMs: 50 });
    const before = await nodeGets(cluster.url);
    // About 20 renewals per node.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await nodeGets(cluster.url)) - before).toBeLessThan(3);
  });
});
