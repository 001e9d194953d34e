import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { DaemonSet } from "kubernetes-models/apps/v1";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { startBalloonSim, type BalloonSim } from "../test/sim.js";
import { BALLOON_LABEL, NODE_TARGET_ANNOTATION } from "./names.js";
import { resizeNode } from "./resize-client.js";
import { PODS } from "./resources.js";
import { parseResourceList } from "./resource-list.js";

const run = promisify(execFile);
const packageDir = fileURLToPath(new URL("..", import.meta.url));
const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const pods = fileURLToPath(new URL("../test/fixtures/pods.yaml", import.meta.url));
const mixedPods = fileURLToPath(new URL("../test/fixtures/pods-two-nodes.yaml", import.meta.url));

/** The newest change to the shipped sources, so a stale build is rebuilt instead of silently tested. */
function newestSource(): number {
  const dir = fileURLToPath(new URL(".", import.meta.url));
  const sources = readdirSync(dir).filter((file) => !file.endsWith(".test.ts"));
  return Math.max(...sources.map((file) => statSync(`${dir}/${file}`).mtimeMs));
}

beforeAll(() => {
  if (!existsSync(cli) || statSync(cli).mtimeMs < newestSource()) {
    execFileSync("npm", ["run", "build"], { cwd: packageDir, stdio: "ignore" });
  }
}, 120_000);

/** A port on 127.0.0.1 that was just free: connecting to it is refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

async function balloon(...args: string[]): Promise<Result> {
  try {
    const { stdout, stderr } = await run(process.execPath, [cli, ...args], { timeout: 30_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

// Each test starts child processes on a machine shared with other work: give them room.
describe("balloon CLI (built, run as a child process)", { timeout: 30_000 }, () => {
  it("plans a resize from flags and a pods file", async () => {
    const result = await balloon(
      "plan",
      "--allocatable",
      "cpu=8,memory=32Gi",
      "--pods",
      pods,
      "--balloon",
      "cpu=2,memory=8Gi",
      "--target",
      "cpu=4,memory=16Gi",
    );
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("decision: resize");
    expect(result.stdout).toContain("balloon requests: cpu=4,memory=16Gi");
  });

  it("counts the pods in the file (not the finished one, not the balloon) and exits 1 on a refusal", async () => {
    const result = await balloon(
      "plan",
      "--allocatable=cpu=8,memory=32Gi",
      `--pods=${pods}`,
      "--balloon=cpu=2,memory=8Gi",
      "--target=cpu=1,memory=5Gi",
      "--output=json",
    );
    expect(result.code).toBe(1);
    const plan = JSON.parse(result.stdout) as { decision: string; refusals: { resource: string; otherPods: string; room: string }[] };
    expect(plan.decision).toBe("refused");
    // web 1 cpu + worker 500m (limits default the requests); memory 4Gi + 2Gi = 6Gi > 5Gi as well.
    expect(plan.refusals).toEqual([
      expect.objectContaining({ resource: "cpu", otherPods: "1500m", room: "6500m" }),
      expect.objectContaining({ resource: "memory", otherPods: "6Gi", room: "26Gi" }),
    ]);
  });

  it("exits 2 (bad usage) on a bad quantity with a message naming the value", async () => {
    const result = await balloon("plan", "--allocatable", "cpu=8,memory=32GB", "--balloon", "cpu=2", "--target", "cpu=4");
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain('invalid quantity "32GB"');
    expect(result.stderr).toContain("--allocatable");
    expect(result.stderr).toContain("did you mean G or Gi?");
  });

  it("reports a contract violation from the sizing API as an error", async () => {
    const result = await balloon("plan", "--allocatable", "cpu=8", "--balloon", "cpu=2", "--target", "ephemeral-storage=1Gi");
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^balloon: target names "ephemeral-storage"/);
  });

  it("turns nonsense units into errors naming the flag's value and the rule", async () => {
    const plan = (target: string, ...extra: string[]) =>
      balloon("plan", "--allocatable", "cpu=8,memory=32Gi", "--balloon", "cpu=2,memory=8Gi", "--target", target, ...extra);
    const [halfByte, cpuBytes, milliBytes] = await Promise.all([
      plan("memory=500m"),
      plan("cpu=4Gi"),
      plan("memory=16Gi", "--granularity", "memory=1m"),
    ]);
    expect(halfByte.code).toBe(2);
    expect(halfByte.stderr).toContain('target memory: fractional byte value "500m" is invalid, must be an integer (did you mean 500Mi?)');
    expect(cpuBytes.code).toBe(2);
    expect(cpuBytes.stderr).toContain('target cpu: "4Gi" uses a binary (byte) suffix');
    expect(milliBytes.code).toBe(2);
    expect(milliBytes.stderr).toContain('granularity memory: fractional byte value "1m" is invalid');
  });

  it("refuses a BestEffort balloon, empty or zero", async () => {
    for (const requests of ["", "cpu=0,memory=0"]) {
      const result = await balloon("plan", "--allocatable", "cpu=8", "--balloon", requests, "--target", "cpu=4");
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("BestEffort");
    }
  });

  it("does not add up pods of several nodes unless --node names one", async () => {
    const args = [
      "plan",
      "--allocatable=cpu=8,memory=32Gi",
      `--pods=${mixedPods}`,
      "--balloon=cpu=2,memory=8Gi",
      "--target=cpu=4,memory=16Gi",
    ];
    const mixed = await balloon(...args);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain("holds pods of 2 nodes (node-a, node-b); pass --node");
    const one = await balloon(...args, "--node=node-b", "-o", "json");
    expect(one.code).toBe(0);
    expect((JSON.parse(one.stdout) as { decision: string }).decision).toBe("resize");
  });

  it("submits an upsize that does not fit when asked to defer, or grows the balloon partially", async () => {
    const args = [
      "plan",
      "--allocatable=cpu=8,memory=32Gi",
      `--pods=${pods}`,
      "--balloon=cpu=2,memory=8Gi",
      "--target=cpu=1",
      "-o",
      "json",
    ];
    const defer = await balloon(...args, "--on-shortfall=defer");
    expect(defer.code).toBe(0);
    expect(JSON.parse(defer.stdout)).toMatchObject({ decision: "defer", balloon: { cpu: "7" } });
    const partial = await balloon(...args, "--on-shortfall=partial");
    expect(JSON.parse(partial.stdout)).toMatchObject({ decision: "resize", balloon: { cpu: "6500m" } });
  });

  it("splits a host between kubelets", async () => {
    const result = await balloon("split", "--host", "cpu=64,memory=256Gi", "--kubelets", "8", "-o", "json");
    expect(result.code).toBe(0);
    const split = JSON.parse(result.stdout) as { kubelets: string; balloon: Record<string, string>; effective: Record<string, string> };
    expect(split).toMatchObject({ kubelets: "8", balloon: { cpu: "56", memory: "224Gi" }, effective: { cpu: "8", memory: "32Gi" } });
    const bad = await balloon("split", "--host", "cpu=64", "--kubelets", "eight");
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('"eight" is not a positive integer');
  });

  it("prints manifests that parse as YAML and validate upstream", async () => {
    const result = await balloon("manifests", "--namespace", "node-sizing", "--image", "example.com/pause:1");
    expect(result.code).toBe(0);
    const documents = parseAllDocuments(result.stdout).map((doc) => doc.toJS() as { kind: string; metadata: { namespace?: string } });
    expect(documents.map((doc) => doc.kind)).toContain("DaemonSet");
    const daemonSet = documents.find((doc) => doc.kind === "DaemonSet");
    expect(daemonSet?.metadata.namespace).toBe("node-sizing");
    new DaemonSet(daemonSet).validate();
  });

  it("prints its version", async () => {
    const result = await balloon("--version");
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe("balloon status (built, against a simulated cluster)", { timeout: 30_000 }, () => {
  let sim: BalloonSim;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "balloon-status-"));
    sim = await startBalloonSim([{ name: "node-a" }, { name: "node-b" }], { cpu: "8", memory: "32Gi" });
    await sim.cluster.writeKubeconfig(join(dir, "kubeconfig"));
    await sim.balloon("node-a", { cpu: "2", memory: "8Gi" });
    await sim.workload("node-a", "web", { cpu: "5", memory: "1Gi" });
    // A workload that calls itself a balloon: the label and a container named balloon, but not
    // in the balloon namespace, not the DaemonSet's, not at the balloon priority.
    await sim.client.create(PODS, "default", {
      metadata: { name: "impostor", labels: { [BALLOON_LABEL]: "true" } },
      spec: {
        nodeName: "node-b",
        containers: [{ name: "balloon", image: "registry.k8s.io/pause:3.10", resources: { requests: { cpu: "100m", memory: "64Mi" } } }],
      },
    });
    await sim.patchNode("node-a", { metadata: { annotations: { [NODE_TARGET_ANNOTATION]: "cpu=6,memory=24Gi" } } });
  }, 60_000);

  afterAll(async () => {
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("prints the table from a kubeconfig file", async () => {
    const { stdout } = await run(process.execPath, [cli, "status", "--kubeconfig", join(dir, "kubeconfig")], { timeout: 30_000 });
    const lines = stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^NODE\s+CAPACITY\s+ALLOCATABLE\s+BALLOON DESIRED\s+BALLOON ALLOCATED\s+EFFECTIVE\s+TARGET\s+RESIZE$/);
    expect(lines[1]?.split(/\s+/)).toEqual([
      "node-a",
      "cpu=8,memory=32Gi",
      "cpu=8,memory=32Gi",
      "cpu=2,memory=8Gi",
      "cpu=2,memory=8Gi",
      "cpu=6,memory=24Gi",
      "cpu=6,memory=24Gi",
      "-",
    ]);
    expect(lines[2]?.split(/\s+/)).toEqual(["node-b", "cpu=8,memory=32Gi", "cpu=8,memory=32Gi", "-", "-", "cpu=8,memory=32Gi", "-", "-"]);
  });

  it("resize exits 1 with the reason when the target does not fit beside the running pods", async () => {
    const refused = run(
      process.execPath,
      [cli, "resize", "--kubeconfig", join(dir, "kubeconfig"), "--node", "node-a", "--target", "cpu=2"],
      { timeout: 30_000 },
    );
    await expect(refused).rejects.toMatchObject({
      code: 1,
      stdout:
        "node: node-a\noutcome: refused\npatched: false\nreason: refused: the target does not fit beside running pods; cpu: the balloon needs 6 but other pods request 5 of 8 allocatable, leaving 3\n",
    });
  });

  it("neither reports nor resizes a pod that only looks like a balloon", async () => {
    const { stdout } = await run(process.execPath, [cli, "status", "--kubeconfig", join(dir, "kubeconfig"), "-o", "json"], {
      timeout: 30_000,
    });
    const rows = JSON.parse(stdout) as Array<{
      node: string;
      labels: Record<string, string>;
      balloonPod?: string;
      effective: Record<string, string>;
    }>;
    // What an autoscaler groups and sizes nodes by: the Node's labels and its effective size.
    expect(rows.find((r) => r.node === "node-a")).toMatchObject({
      labels: { "kubernetes.io/hostname": "node-a" },
      effective: { cpu: "6", memory: "24Gi" },
    });
    expect(rows.find((r) => r.node === "node-b")).toMatchObject({ effective: { cpu: "8", memory: "32Gi" } });
    expect(rows.find((r) => r.node === "node-b")?.balloonPod).toBeUndefined();
    const refused = run(
      process.execPath,
      [cli, "resize", "--kubeconfig", join(dir, "kubeconfig"), "--node", "node-b", "--target", "cpu=7,memory=28Gi"],
      { timeout: 30_000 },
    );
    await expect(refused).rejects.toMatchObject({
      code: 1,
      stdout: expect.stringContaining("reason: node node-b has no running balloon pod") as unknown,
    });
    const impostor = await sim.pod("default", "impostor");
    expect(impostor.spec?.containers[0]?.resources?.requests).toEqual({ cpu: "100m", memory: "64Mi" });
    expect(impostor.metadata?.generation).toBe(1);
  });

  it("resize keeps the node's target annotation in step, so a recreated balloon is resized back to the new size", async () => {
    const kubeconfig = join(dir, "kubeconfig");
    const annotation = async () => (await sim.node("node-a")).metadata?.annotations?.[NODE_TARGET_ANNOTATION];
    // Refused: nothing changed, so neither does the annotation.
    await expect(
      run(process.execPath, [cli, "resize", "--kubeconfig", kubeconfig, "--node", "node-a", "--target", "cpu=1"], { timeout: 30_000 }),
    ).rejects.toMatchObject({ code: 1 });
    expect(await annotation()).toBe("cpu=6,memory=24Gi");
    // Applied: the resized resource replaces its entry, the others stay.
    const { stdout } = await run(process.execPath, [cli, "resize", "--kubeconfig", kubeconfig, "--node", "node-a", "--target", "cpu=5"], {
      timeout: 30_000,
    });
    expect(stdout).toContain("outcome: applied");
    expect(await annotation()).toBe("cpu=5,memory=24Gi");
    // The balloon is recreated at the template size; whoever restores it reads the annotation.
    await sim.client.delete(PODS, "kube-system", "node-balloon-node-a", { gracePeriodSeconds: 0 });
    await sim.balloon("node-a", { cpu: "1m", memory: "1Mi" }, "node-balloon-node-a-2");
    const restored = await resizeNode(sim.client, "node-a", parseResourceList((await annotation()) ?? ""), {
      pollIntervalMs: 20,
      events: false,
    });
    expect(restored.outcome).toBe("applied");
    const balloonPod = await sim.pod("kube-system", "node-balloon-node-a-2");
    expect(balloonPod.spec?.containers[0]?.resources?.requests).toEqual({ cpu: "3", memory: "8Gi" });
  });

  it("exits 2 for an unreadable kubeconfig and 3 for a cluster it cannot reach, with one line each", async () => {
    const missing = run(process.execPath, [cli, "status", "--kubeconfig", join(dir, "nope")], { timeout: 30_000 });
    await expect(missing).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^balloon: cannot read the kubeconfig .*nope.*\n$/) as unknown,
    });
    // A kubeconfig whose server is a closed port on this machine.
    const closed = join(dir, "closed");
    const port = await closedPort();
    writeFileSync(closed, readFileSync(join(dir, "kubeconfig"), "utf8").replace(/server: .*/, `server: http://127.0.0.1:${port}`));
    const unreachable = run(process.execPath, [cli, "status", "--kubeconfig", closed], { timeout: 30_000 });
    await expect(unreachable).rejects.toMatchObject({
      code: 3,
      stderr: expect.stringMatching(/^balloon: .*ECONNREFUSED[^\n]*\n$/) as unknown,
    });
  });

  it("in a pod without a kubeconfig, uses the service account (and says when it has none)", async () => {
    const home = mkdtempSync(join(dir, "home-"));
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: home,
      KUBERNETES_SERVICE_HOST: "127.0.0.1",
      KUBERNETES_SERVICE_PORT: String(await closedPort()),
    };
    const status = run(process.execPath, [cli, "status"], { timeout: 30_000, env });
    await expect(status).rejects.toMatchObject({
      code: 2,
      stderr:
        "balloon: cannot read the kubeconfig (default): unable to load in-cluster configuration: no service account token in /var/run/secrets/kubernetes.io/serviceaccount/token\n",
    });
  });
});
