import { spawn, execFile, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
// The real kubectl 1.32, found as the control plane's suites find it.
import { findKubectl132 } from "../../../packages/generic-controlplane/test/harness/tools.js";

/** The built binary: nx builds it (and the libraries it bundles) before this project's tests. */
const mainScript = join(import.meta.dirname, "..", "dist", "main.js");

const children = new Set<ChildProcess>();
const dirs: string[] = [];

afterEach(() => {
  for (const child of children) child.kill("SIGKILL");
  children.clear();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface Running {
  child: ChildProcess;
  stdout: string[];
  exited: Promise<number | null>;
}

/** Starts the binary and resolves once it has printed its ready line and the usage that follows (30 s at most). */
function startBinary(args: string[], cwd: string): Promise<Running> {
  if (!existsSync(mainScript)) throw new Error(`${mainScript} is missing: run "npm run build" first`);
  const child = spawn(process.execPath, [mainScript, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  const stdout: string[] = [];
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`not ready in 30 s; stderr: ${stderr}`));
    }, 30_000);
    createInterface({ input: child.stdout }).on("line", (line) => {
      stdout.push(line);
      if (line === "Ctrl-C stops the cluster.") {
        clearTimeout(timer);
        resolve({ child, stdout, exited });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before ready; stderr: ${stderr}`));
    });
  });
}

function kubectl(kubeconfig: string, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(findKubectl132(), ["--kubeconfig", kubeconfig, ...args], { timeout: 30_000, encoding: "utf8" }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`kubectl ${args.join(" ")}: ${stderr}`));
      else resolve(stdout);
    });
  });
}

function get(host: string, port: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path, agent: false, timeout: 5_000 }, (response) => {
      let body = "";
      response.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve(body));
    });
    req.on("timeout", () => req.destroy(new Error("timed out")));
    req.on("error", reject);
    req.end();
  });
}

async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ""}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("sim-cluster binary", () => {
  it("starts a traffic-mode cluster kubectl can use, serves a NodePort, and stops cleanly on SIGTERM", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sim-cluster-bin-"));
    dirs.push(dir);
    const kubeconfig = join(dir, "kube", "config");
    const running = await startBinary(["--nodes", "2", "--traffic", "--kubeconfig", kubeconfig, "--port", "0"], dir);
    const url = /^ready (http:\/\/127\.0\.0\.1:\d+)$/.exec(running.stdout[0] ?? "")?.[1];
    expect(url).toBeDefined();
    expect(running.stdout).toContain(`  export KUBECONFIG=${kubeconfig}`);
    expect(readFileSync(kubeconfig, "utf8")).toContain(`server: ${url}`);
    const printed = new Map(running.stdout.filter((l) => /^ {2}sim-node-\d /.test(l)).map((l) => l.trim().split(" ") as [string, string]));
    expect([...printed.keys()]).toEqual(["sim-node-1", "sim-node-2"]);

    const nodes = await kubectl(kubeconfig, "get", "nodes", "--no-headers");
    expect(
      nodes
        .trim()
        .split("\n")
        .map((l) => l.split(/\s+/).slice(0, 2)),
    ).toEqual([
      ["sim-node-1", "Ready"],
      ["sim-node-2", "Ready"],
    ]);
    await kubectl(kubeconfig, "create", "deployment", "web", "--image=x", "--replicas=2");
    await kubectl(kubeconfig, "expose", "deployment", "web", "--type=NodePort", "--port=80", "--target-port=8080");
    const nodePort = Number(await kubectl(kubeconfig, "get", "svc", "web", "-o", "jsonpath={.spec.ports[0].nodePort}"));
    const address = printed.get("sim-node-2")!;
    const hostname = await eventually("the NodePort to answer", () => get(address, nodePort, "/hostname"));
    expect(hostname).toMatch(/^web-[a-z0-9]+-[a-z0-9]{5}$/);

    running.child.kill("SIGTERM");
    expect(await running.exited).toBe(0);
    await expect(get(address, nodePort, "/hostname")).rejects.toMatchObject({ code: "ECONNREFUSED" });
  });

  it("starts nodes at --node-capacity and hot-plugs one through kubectl annotate", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sim-cluster-bin-"));
    dirs.push(dir);
    const kubeconfig = join(dir, "kubeconfig");
    await startBinary(["--nodes", "1", "--node-capacity", "cpu=8,memory=32Gi", "--kubeconfig", kubeconfig], dir);
    const size = () =>
      kubectl(
        kubeconfig,
        "get",
        "node",
        "sim-node-1",
        "-o",
        "jsonpath={.status.capacity.cpu} {.status.capacity.memory} {.status.allocatable.cpu}",
      );
    expect(await size()).toBe("8 32Gi 8");
    await kubectl(kubeconfig, "annotate", "node", "sim-node-1", "sim.kubekit.dev/capacity=cpu=16");
    // Taken at the kubelet's next status update (10 s).
    expect(await eventually("the hot-plugged size", async () => ((await size()) === "16 32Gi 16" ? "ok" : undefined), 25_000)).toBe("ok");
  }, 60_000);

  it("refuses bad flags with usage and exit code 2", async () => {
    const child = spawn(process.execPath, [mainScript, "--nodes", "none"], { stdio: ["ignore", "pipe", "pipe"] });
    children.add(child);
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('--nodes must be an integer between 1 and 1000, got "none"');
    expect(stderr).toContain("Usage: sim-cluster [flags]");
    const bad = spawn(process.execPath, [mainScript, "--node-capacity", "cpu=8,memory"], { stdio: ["ignore", "pipe", "pipe"] });
    children.add(bad);
    let badStderr = "";
    bad.stderr.setEncoding("utf8").on("data", (chunk: string) => (badStderr += chunk));
    expect(await new Promise<number | null>((resolve) => bad.once("exit", resolve))).toBe(2);
    expect(badStderr).toContain('--node-capacity must be a list such as cpu=8,memory=32Gi, got "cpu=8,memory"');
  });
});
