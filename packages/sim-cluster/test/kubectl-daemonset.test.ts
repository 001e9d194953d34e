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

const DS_YAML = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels:
      app: agent
  template:
    metadata:
      labels:
        app: agent
    spec:
      nodeSelector:
        kubernetes.io/os: linux
      containers:
      - name: agent
        image: agent:1
`;

interface PodList {
  items: Array<{
    metadata: { name: string };
    spec: { nodeName?: string; containers: Array<{ image: string }> };
    status: { phase?: string };
  }>;
}

async function images(): Promise<Record<string, string>> {
  const out = await run("get", "pods", "-l", "app=agent", "-o", "json");
  const pods = (JSON.parse(out.stdout) as PodList).items;
  return Object.fromEntries(pods.map((p) => [p.spec.nodeName ?? "", p.spec.containers[0]!.image]));
}

beforeAll(async () => {
  cluster = await startSimCluster({
    nodes: [{}, {}, { name: "cp", taints: [{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }] }],
  });
  dir = await mkdtemp(join(tmpdir(), "sim-cluster-ds-"));
  kubeconfig = join(dir, "kubeconfig");
  await cluster.writeKubeconfig(kubeconfig);
});

afterAll(async () => {
  await cluster?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

// Each case runs a dozen kubectl processes and waits on rollouts: more than the default 5 s on a loaded machine.
describe("kubectl 1.32: DaemonSets", { timeout: 30_000 }, () => {
  it("create -f ds.yaml runs one pod per untainted node; get ds shows upstream's columns; rollout status finishes", async () => {
    const file = join(dir, "ds.yaml");
    await writeFile(file, DS_YAML);
    expect(await run("create", "-f", file)).toMatchObject({ code: 0, stdout: "daemonset.apps/agent created\n" });
    const status = await run("rollout", "status", "daemonset/agent", "--timeout=20s");
    expect(status.code).toBe(0);
    expect(status.stdout.trim().split("\n").at(-1)).toBe('daemon set "agent" successfully rolled out');
    // The control-plane node's taint is not tolerated: no pod there.
    expect(await images()).toEqual({ "sim-node-1": "agent:1", "sim-node-2": "agent:1" });
    const get = await run("get", "ds", "agent", "-o", "wide");
    const [header, row] = get.stdout.trim().split("\n");
    expect(header).toMatch(
      /^NAME\s+DESIRED\s+CURRENT\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+NODE SELECTOR\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR$/,
    );
    expect(row).toMatch(/^agent\s+2\s+2\s+2\s+2\s+2\s+kubernetes\.io\/os=linux\s+\S+\s+agent\s+agent:1\s+app=agent$/);
  });

  it("set image rolls the pods; rollout history lists the revisions; rollout undo goes back", async () => {
    expect((await run("set", "image", "daemonset/agent", "agent=agent:2")).code).toBe(0);
    expect((await run("rollout", "status", "daemonset/agent", "--timeout=20s")).stdout).toContain(
      'daemon set "agent" successfully rolled out',
    );
    await eventually("the pods on agent:2", async () => {
      const now = await images();
      return Object.keys(now).length === 2 && Object.values(now).every((i) => i === "agent:2") ? true : undefined;
    });
    const history = await run("rollout", "history", "daemonset/agent");
    expect(history.stdout).toMatch(/REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>/);
    const revisions = await run("get", "controllerrevisions");
    expect(revisions.stdout).toMatch(
      /NAME\s+CONTROLLER\s+REVISION\s+AGE\nagent-\w+\s+daemonset\.apps\/agent\s+[12]\s+\S+\nagent-\w+\s+daemonset\.apps\/agent\s+[12]\s+/,
    );

    const undo = await run("rollout", "undo", "daemonset/agent");
    expect(undo).toMatchObject({ code: 0, stdout: "daemonset.apps/agent rolled back\n" });
    expect((await run("rollout", "status", "daemonset/agent", "--timeout=20s")).stdout).toContain(
      'daemon set "agent" successfully rolled out',
    );
    await eventually("the pods back on agent:1", async () => {
      const now = await images();
      return Object.keys(now).length === 2 && Object.values(now).every((i) => i === "agent:1") ? true : undefined;
    });
    // The template that came back is the newest revision, as upstream.
    expect((await run("rollout", "history", "daemonset/agent")).stdout).toMatch(/REVISION\s+CHANGE-CAUSE\n2\s+<none>\n3\s+<none>/);
  });

  it("rollout restart replaces every pod through a new revision", async () => {
    const names = async () =>
      (JSON.parse((await run("get", "pods", "-l", "app=agent", "-o", "json")).stdout) as PodList).items.map((p) => p.metadata.name);
    const before = await names();
    expect(await run("rollout", "restart", "daemonset/agent")).toMatchObject({ code: 0, stdout: "daemonset.apps/agent restarted\n" });
    expect((await run("rollout", "status", "daemonset/agent", "--timeout=20s")).stdout).toContain(
      'daemon set "agent" successfully rolled out',
    );
    await eventually("only restarted pods", async () => {
      const now = await names();
      return now.length === 2 && now.every((n) => !before.includes(n)) ? true : undefined;
    });
    expect((await run("rollout", "history", "daemonset/agent")).stdout).toMatch(
      /REVISION\s+CHANGE-CAUSE\n2\s+<none>\n3\s+<none>\n4\s+<none>/,
    );
  });

  it("refuses an invalid update strategy with upstream's message", async () => {
    const bad = join(dir, "bad.json");
    await writeFile(
      bad,
      JSON.stringify({
        apiVersion: "apps/v1",
        kind: "DaemonSet",
        metadata: { name: "bad" },
        spec: {
          selector: { matchLabels: { a: "b" } },
          updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } },
          template: { metadata: { labels: { a: "b" } }, spec: { containers: [{ name: "c", image: "x" }] } },
        },
      }),
    );
    const refused = await run("create", "-f", bad);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toBe(
      'The DaemonSet "bad" is invalid: spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero\n',
    );
  });
});
