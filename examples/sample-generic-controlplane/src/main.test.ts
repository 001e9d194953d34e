import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { mainScript, startBinary, type RunningBinary } from "./binary.test-support.js";

const children = new Set<ChildProcess>();
const dirs: string[] = [];

afterEach(() => {
  for (const child of children) child.kill("SIGKILL");
  children.clear();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function start(args: string[], cwd: string): Promise<RunningBinary> {
  const running = await startBinary(args, cwd);
  children.add(running.child);
  void running.exited.then(() => children.delete(running.child));
  return running;
}

describe("sample-generic-controlplane binary", () => {
  it("keeps objects across a restart on the same sqlite file and shuts down cleanly on SIGTERM", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sample-gcp-"));
    dirs.push(dir);
    const args = ["--port", "0", "--storage", `sqlite:${join(dir, "data", "state.db")}`, "--kubeconfig", join(dir, "kube", "config"), "--quiet"];

    const first = await start(args, dir);
    expect(first.stdout).toEqual([`ready ${first.url}`]);
    const kubeconfig = readFileSync(join(dir, "kube", "config"), "utf8");
    expect(kubeconfig).toContain(`server: ${first.url}`);
    expect(kubeconfig).toContain("current-context: sample-generic-controlplane");

    const created = await fetch(`${first.url}/api/v1/namespaces/default/configmaps`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "survivor" }, data: { k: "v" } }),
    });
    expect(created.status).toBe(201);
    const uid = ((await created.json()) as { metadata: { uid: string } }).metadata.uid;

    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);

    const second = await start(args, dir);
    const read = await fetch(`${second.url}/api/v1/namespaces/default/configmaps/survivor`);
    expect(read.status).toBe(200);
    const body = (await read.json()) as { data: Record<string, string>; metadata: { uid: string } };
    expect(body.data).toEqual({ k: "v" });
    expect(body.metadata.uid).toBe(uid);
    second.child.kill("SIGINT");
    expect(await second.exited).toBe(0);
  });

  it("runs the controllers selected with --controllers: a deleted namespace and its content go", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sample-gcp-"));
    dirs.push(dir);
    const running = await start(["--port", "0", "--storage", "memory", "--kubeconfig", join(dir, "config"), "--quiet", "--controllers=*,-garbagecollector"], dir);
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${running.url}${path}`, { method, headers: { "Content-Type": "application/json" }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    expect((await call("POST", "/api/v1/namespaces", { metadata: { name: "doomed" } })).status).toBe(201);
    expect((await call("POST", "/api/v1/namespaces/doomed/configmaps", { metadata: { name: "c" } })).status).toBe(201);
    expect((await call("DELETE", "/api/v1/namespaces/doomed")).status).toBe(200);
    const deadline = Date.now() + 5_000;
    while ((await call("GET", "/api/v1/namespaces/doomed")).status !== 404) {
      if (Date.now() > deadline) throw new Error("namespace doomed still there after 5 s");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const metrics = await (await call("GET", "/metrics")).text();
    expect(metrics).toContain('workqueue_adds_total{name="namespace"}');
    expect(metrics).not.toContain("garbage_collector_attempt_to_delete");
    running.child.kill("SIGTERM");
    expect(await running.exited).toBe(0);
  });

  it("rejects an unknown controller with a usage message and exit code 2", async () => {
    const child = spawn(process.execPath, [mainScript, "--controllers", "*,-gc"], { stdio: ["ignore", "pipe", "pipe"] });
    children.add(child);
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('--controllers: "gc" is not in the list of known controllers');
  });

  it("rejects an unknown storage spec with a usage message and exit code 2", async () => {
    const child = spawn(process.execPath, [mainScript, "--storage", "etcd://x"], { stdio: ["ignore", "pipe", "pipe"] });
    children.add(child);
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('--storage must be "memory" or "sqlite:<path>"');
  });
});
