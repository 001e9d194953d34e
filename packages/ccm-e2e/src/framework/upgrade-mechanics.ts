import { fail } from "./assert.js";
import type { TestContext } from "./context.js";
import { checkReady, readySchedulableNodes } from "./nodes.js";
import { poll } from "./poll.js";
import { NODES, type Node } from "./resources.js";

/** How long `checkControlPlaneVersion` waits for the API server to answer again (upstream's 2 min). */
const CONTROL_PLANE_ANSWER_MS = 2 * 60_000;

const withoutV = (version: string) => (version.startsWith("v") ? version.slice(1) : version);

/**
 * `checkControlPlaneVersion`: once `/version` answers, its `gitVersion` must start with `want`
 * (`want` looks like 1.33.1, `gitVersion` like v1.33.1-gke.100).
 */
export async function checkControlPlaneVersion(ctx: TestContext, want: string): Promise<void> {
  ctx.log("Checking control plane version");
  let gitVersion: string;
  try {
    gitVersion = await poll(
      "the control plane to report its version",
      { timeoutMs: CONTROL_PLANE_ANSWER_MS, signal: ctx.signal },
      async () => {
        const info = (await ctx.client.request("GET", "/version")) as { gitVersion?: string };
        return info.gitVersion ?? "";
      },
    );
  } catch (error) {
    fail(`CheckControlPlane() couldn't get the control plane version: ${(error as Error).message}`);
  }
  const got = withoutV(gitVersion);
  if (!got.startsWith(want)) fail(`control plane had kube-apiserver version ${got} which does not start with ${want}`);
  ctx.log(`Control plane is at version ${want}`);
}

/**
 * `checkNodesVersions`: every ready, schedulable node's kubelet reports a version starting with
 * `want`, and its (deprecated) kube-proxy version is empty or starts with it. Upstream's check of
 * the latter, `len(kpv) != 0 || !HasPrefix(kpv, want)`, rejects every value; its message says
 * what is meant, which is what is checked here.
 */
export async function checkNodesVersions(ctx: TestContext, want: string): Promise<void> {
  for (const node of await readySchedulableNodes(ctx.client)) {
    const info = (node.status as { nodeInfo?: { kubeletVersion?: string; kubeProxyVersion?: string } } | undefined)?.nodeInfo;
    const kubelet = withoutV(info?.kubeletVersion ?? "");
    const kubeProxy = withoutV(info?.kubeProxyVersion ?? "");
    if (!kubelet.startsWith(want)) fail(`node ${node.metadata.name} had kubelet version ${kubelet} which does not start with ${want}`);
    if (kubeProxy !== "" && !kubeProxy.startsWith(want))
      fail(`node ${node.metadata.name} had kube-proxy version ${kubeProxy} which does not start with ${want} or is not empty value`);
  }
}

/** `waitForNodesReadyAfterUpgrade`: every registered node Ready within `RestartNodeReadyAgainTimeout`. */
export async function waitForNodesReadyAfterUpgrade(ctx: TestContext): Promise<void> {
  const numNodes = (await ctx.client.list<Node>(NODES)).items.length;
  ctx.log(`Waiting up to ${ctx.timeouts.nodeReadyAgain / 1000}s for all ${numNodes} nodes to be ready after the upgrade`);
  await checkReady(ctx, numNodes, ctx.timeouts.nodeReadyAgain);
}

/** `ControlPlaneUpgradeFunc`: the control plane to the target, then its version checked. */
export function controlPlaneUpgradeFunc(ctx: TestContext, target: string): () => Promise<void> {
  return async () => {
    ctx.step(`upgrading the control plane to ${target}`);
    await ctx.driver.upgradeControlPlane!(target);
    await checkControlPlaneVersion(ctx, target);
  };
}

/** `ClusterUpgradeFunc`: the control plane, then the nodes, each checked. */
export function clusterUpgradeFunc(ctx: TestContext, target: string): () => Promise<void> {
  return async () => {
    await controlPlaneUpgradeFunc(ctx, target)();
    ctx.step(`upgrading the nodes to ${target}`);
    await ctx.driver.upgradeNodes!(target);
    await waitForNodesReadyAfterUpgrade(ctx);
    await checkNodesVersions(ctx, target);
  };
}

/** `ClusterDowngradeFunc`: "Yes this really is a downgrade. And nodes must downgrade first." */
export function clusterDowngradeFunc(ctx: TestContext, target: string): () => Promise<void> {
  return async () => {
    ctx.step(`downgrading the nodes to ${target}`);
    await ctx.driver.downgrade!(target, "nodes");
    await waitForNodesReadyAfterUpgrade(ctx);
    await checkNodesVersions(ctx, target);
    ctx.step(`downgrading the control plane to ${target}`);
    await ctx.driver.downgrade!(target, "controlPlane");
    await checkControlPlaneVersion(ctx, target);
  };
}
