import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCluster, type TestCluster } from "./test-cluster.js";

const main = fileURLToPath(new URL("../dist/main.js", import.meta.url));
const run = promisify(execFile);

describe("balloon-agent binary", () => {
  let sim: TestCluster;
  let dir: string;
  let agent: ChildProcess | undefined;

  beforeAll(async () => {
    if (!existsSync(main)) throw new Error(`${main} is missing: run "npm run build" first`);
    dir = mkdtempSync(join(tmpdir(), "balloon-agent-"));
    sim = await startTestCluster(["node-a"], { cpu: "4", memory: "16Gi" });
    await sim.cluster.writeKubeconfig(join(dir, "kubeconfig"));
    await sim.balloon("node-a", { cpu: "1", memory: "4Gi" });
  });

  afterAll(async () => {
    if (agent && agent.exitCode === null) {
      const exited = new Promise((resolve) => agent?.once("exit", resolve));
      agent.kill("SIGKILL");
      await exited;
    }
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("serves /metrics with the node's real and effective size, and releases its Lease on SIGTERM", async () => {
    agent = spawn(
      process.execPath,
      [
        main,
        "--kubeconfig",
        join(dir, "kubeconfig"),
        "--port",
        "0",
        "--lease-duration",
        "2s",
        "--renew-deadline",
        "1500ms",
        "--retry-period",
        "200ms",
      ],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    agent.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      agent?.stdout?.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        const match = /^ready (\S+)$/m.exec(out);
        if (match?.[1]) resolve(match[1]);
      });
      agent?.once("exit", (code) => reject(new Error(`agent exited with ${String(code)}: ${stderr}`)));
    });
    const body = await sim.until("node-a in /metrics", async () => {
      const text = await (await fetch(`${url}/metrics`)).text();
      return text.includes('balloon_node_effective{node="node-a",resource="cpu"}') ? text : undefined;
    });
    expect(body).toContain('balloon_node_allocatable{node="node-a",resource="cpu"} 4');
    expect(body).toContain('balloon_node_effective{node="node-a",resource="cpu"} 3');
    expect(body).toContain('balloon_node_effective{node="node-a",resource="memory"} 12884901888');
    expect(body).toContain('leader_election_master_status{name="balloon-agent"} 1');

    const exited = new Promise<number | null>((resolve) => agent?.once("exit", resolve));
    agent.kill("SIGTERM");
    expect(await exited).toBe(0);
    const leases = await fetch(`${sim.cluster.url}/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/balloon-agent`);
    const released = (await leases.json()) as { spec?: { holderIdentity?: string } };
    expect(released.spec?.holderIdentity ?? "").toBe("");
  });

  it("prints its manifests and rejects bad flags with the usage", async () => {
    const { stdout } = await run(process.execPath, [main, "--print-manifests", "example.com/balloon-agent:1"]);
    expect(stdout).toContain("kind: ValidatingAdmissionPolicy");
    expect(stdout).toContain("image: example.com/balloon-agent:1");
    await expect(run(process.execPath, [main, "--on-shortfall", "evict"])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--on-shortfall must be one of refuse, defer, partial, got "evict"') as unknown,
    });
  });
});
