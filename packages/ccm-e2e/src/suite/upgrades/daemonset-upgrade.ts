import { fail } from "../../framework/assert.js";
import type { TestContext } from "../../framework/context.js";
import { AGNHOST_IMAGE } from "../../framework/jig.js";
import { poll } from "../../framework/poll.js";
import { DAEMONSETS, NODES, PODS, type Node, type Pod } from "../../framework/resources.js";
import type { UpgradeTest } from "../../framework/upgrade-suite.js";

const DS_NAME = "ds1";
const LABELS = { "ds-name": DS_NAME };
/** `framework.Poll`. */
const POLL_MS = 2000;

interface DaemonSet {
  metadata: { name: string; [field: string]: unknown };
  status?: { desiredNumberScheduled?: number; currentNumberScheduled?: number; numberReady?: number };
  [field: string]: unknown;
}

function runningAndReady(pod: Pod): boolean {
  return (
    pod.metadata.deletionTimestamp === undefined &&
    pod.status?.phase === "Running" &&
    (pod.status.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false)
  );
}

/**
 * `e2edaemonset.CheckRunningOnAllNodes`: every node (the pods tolerate every taint) runs an
 * available pod of the DaemonSet. Returns the nodes that do not, empty when all do.
 */
async function nodesWithoutDaemonPod(ctx: TestContext): Promise<string[]> {
  const [nodes, pods] = await Promise.all([
    ctx.client.list<Node>(NODES),
    ctx.client.list<Pod>(PODS, ctx.namespace, {
      labelSelector: Object.entries(LABELS)
        .map(([k, v]) => `${k}=${v}`)
        .join(","),
    }),
  ]);
  const running = new Set(pods.items.filter(runningAndReady).map((pod) => pod.spec?.nodeName));
  return nodes.items.map((node) => node.metadata.name).filter((name) => !running.has(name));
}

/** `validateRunningDaemonSet`: a pod running on every node, and the DaemonSet's status saying so (`CheckDaemonStatus`). */
async function validateRunningDaemonSet(ctx: TestContext): Promise<void> {
  ctx.step("confirming the DaemonSet pods are running on all expected nodes");
  const missing = await nodesWithoutDaemonPod(ctx);
  if (missing.length > 0) fail(`expected DaemonSet pod to be running on all nodes, it was not (none on ${missing.join(", ")})`);
  ctx.step("confirming the DaemonSet resource is in a good state");
  const ds = await ctx.client.get<DaemonSet>(DAEMONSETS, ctx.namespace, DS_NAME);
  const desired = ds.status?.desiredNumberScheduled ?? 0;
  const scheduled = ds.status?.currentNumberScheduled ?? 0;
  const ready = ds.status?.numberReady ?? 0;
  if (desired !== scheduled || desired !== ready)
    fail(`daemon set ${DS_NAME} is not ready; desired ${desired}, scheduled ${scheduled}, ready ${ready}`);
}

/**
 * `apps.DaemonSetUpgradeTest` (test/e2e/upgrades/apps/daemonsets.go): a DaemonSet tolerating every
 * taint runs a ready pod on every node before the upgrade and again after it, its status agreeing.
 */
export function daemonSetUpgradeTest(): UpgradeTest {
  return {
    name: "[sig-apps] daemonset-upgrade",
    async setup(ctx) {
      ctx.step("Creating a DaemonSet");
      await ctx.client.create(DAEMONSETS, ctx.namespace, {
        apiVersion: "apps/v1",
        kind: "DaemonSet",
        metadata: { name: DS_NAME, namespace: ctx.namespace },
        spec: {
          selector: { matchLabels: LABELS },
          template: {
            metadata: { labels: LABELS },
            spec: {
              tolerations: [{ operator: "Exists" }],
              containers: [{ name: "app", image: AGNHOST_IMAGE, args: ["serve-hostname"], ports: [{ containerPort: 9376 }] }],
            },
          },
        },
      });
      ctx.step("Waiting for DaemonSet pods to become ready");
      await poll(
        `DaemonSet ${ctx.namespace}/${DS_NAME} to run on every node`,
        { timeoutMs: ctx.timeouts.podStart, intervalMs: POLL_MS, signal: ctx.signal },
        async (note) => {
          const missing = await nodesWithoutDaemonPod(ctx);
          note(`no running pod on ${missing.join(", ")}`);
          return missing.length === 0 ? true : undefined;
        },
      );
      ctx.step("Validating the DaemonSet after creation");
      await validateRunningDaemonSet(ctx);
    },
    async test(ctx, done) {
      ctx.step("Waiting for upgrade to complete before re-validating DaemonSet");
      await done;
      ctx.step("validating the DaemonSet is still running after upgrade");
      await validateRunningDaemonSet(ctx);
    },
  };
}
