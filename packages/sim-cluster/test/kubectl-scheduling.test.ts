import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimCluster, type SimCluster } from "../src/index.js";
import { eventually, kubectl } from "./kubectl.js";

let cluster: SimCluster;
let dir: string;
let kubeconfig: string;
const run = (...args: string[]) => kubectl(kubeconfig, args);

interface PodList {
  items: Array<{
    metadata: { name: string };
    spec: { nodeName?: string };
    status: { phase?: string; conditions?: Array<{ type: string; reason?: string; message?: string }> };
  }>;
}

async function pods(selector: string): Promise<PodList["items"]> {
  const out = await run("get", "pods", "-l", selector, "-o", "json");
  expect(out.stderr).toBe("");
  return (JSON.parse(out.stdout) as PodList).items;
}

async function apply(name: string, manifest: unknown): Promise<void> {
  const file = join(dir, `${name}.json`);
  await writeFile(file, JSON.stringify(manifest));
  const out = await run("create", "-f", file);
  expect(out.stderr).toBe("");
  expect(out.code).toBe(0);
}

const deployment = (name: string, replicas: number, podSpec: Record<string, unknown>) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "x" }], ...podSpec } },
  },
});

beforeAll(async () => {
  cluster = await startSimCluster({ nodes: [{ labels: { zone: "a" } }, { labels: { zone: "b" } }, { labels: { zone: "b" } }] });
  dir = await mkdtemp(join(tmpdir(), "sim-cluster-scheduling-"));
  kubeconfig = join(dir, "kubeconfig");
  await cluster.writeKubeconfig(kubeconfig);
});

afterAll(async () => {
  await cluster?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

// Each case runs a dozen kubectl processes and waits on rollouts: more than the default 5 s on a loaded machine.
describe("kubectl 1.32: scheduling", { timeout: 30_000 }, () => {
  it("kubectl taint keeps new pods off the node; a toleration lets them on", async () => {
    expect(await run("taint", "nodes", "sim-node-3", "dedicated=gpu:NoSchedule")).toMatchObject({
      code: 0,
      stdout: "node/sim-node-3 tainted\n",
    });
    await apply("plain", deployment("plain", 6, {}));
    expect((await run("rollout", "status", "deployment/plain", "--timeout=20s")).code).toBe(0);
    const placed = (await pods("app=plain")).map((p) => p.spec.nodeName);
    expect(placed).toHaveLength(6);
    expect(new Set(placed)).toEqual(new Set(["sim-node-1", "sim-node-2"]));

    await apply(
      "gpu",
      deployment("gpu", 1, {
        tolerations: [{ key: "dedicated", operator: "Equal", value: "gpu", effect: "NoSchedule" }],
        nodeSelector: { "kubernetes.io/hostname": "sim-node-3" },
      }),
    );
    expect((await run("rollout", "status", "deployment/gpu", "--timeout=20s")).code).toBe(0);
    expect((await pods("app=gpu")).map((p) => p.spec.nodeName)).toEqual(["sim-node-3"]);
  });

  it("required node affinity is honoured, and a pod that fits nowhere says why in its PodScheduled condition", async () => {
    const affinity = (values: string[]) => ({
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: "zone", operator: "In", values }] }],
          },
        },
      },
    });
    await apply("zone-a", deployment("zone-a", 3, affinity(["a"])));
    expect((await run("rollout", "status", "deployment/zone-a", "--timeout=20s")).code).toBe(0);
    expect(new Set((await pods("app=zone-a")).map((p) => p.spec.nodeName))).toEqual(new Set(["sim-node-1"]));

    await apply("zone-c", deployment("zone-c", 1, affinity(["c"])));
    const [pending] = await eventually("the zone-c pod to be unschedulable", async () => {
      const found = await pods("app=zone-c");
      return found.length === 1 && found[0]!.status.conditions?.some((c) => c.reason === "Unschedulable") ? found : undefined;
    });
    const message =
      "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 2 node(s) didn't match Pod's node affinity/selector.";
    expect(pending!.status.conditions?.find((c) => c.type === "PodScheduled")?.message).toBe(message);
    const wide = await run("get", "pod", pending!.metadata.name, "-o", "wide");
    expect(wide.stdout).toMatch(new RegExp(`${pending!.metadata.name}\\s+0/1\\s+Pending\\s+0\\s+\\S+\\s+<none>\\s+<none>`));

    // Untainting and labelling a node lets the pending pod on.
    expect((await run("taint", "nodes", "sim-node-3", "dedicated=gpu:NoSchedule-")).stdout).toBe("node/sim-node-3 untainted\n");
    expect((await run("label", "nodes", "sim-node-3", "zone=c", "--overwrite")).code).toBe(0);
    expect((await run("rollout", "status", "deployment/zone-c", "--timeout=20s")).code).toBe(0);
    expect((await pods("app=zone-c")).map((p) => p.spec.nodeName)).toEqual(["sim-node-3"]);
  });
});
