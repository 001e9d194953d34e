import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type AddressInfo } from "node:net";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteStorage } from "@kubekit/generic-controlplane/storage";
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
  it("says in one line, as kube-apiserver does, that its port is taken, and exits 1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sample-gcp-"));
    dirs.push(dir);
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    try {
      const port = (taken.address() as AddressInfo).port;
      const child = spawn(
        process.execPath,
        [mainScript, "--port", String(port), "--storage", "memory", "--kubeconfig", join(dir, "config"), "--insecure-http"],
        { cwd: dir },
      );
      children.add(child);
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
      const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
      expect(code).toBe(1);
      const lines = stderr.split("\n").filter((line) => line !== "" && !line.startsWith("{"));
      expect(lines).toEqual([
        `failed to create listener: failed to listen on 127.0.0.1:${port}: listen tcp 127.0.0.1:${port}: bind: address already in use`,
      ]);
    } finally {
      taken.close();
    }
  });

  it("keeps objects across a restart on the same sqlite file and shuts down cleanly on SIGTERM", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sample-gcp-"));
    dirs.push(dir);
    const args = [
      "--port",
      "0",
      "--storage",
      `sqlite:${join(dir, "data", "state.db")}`,
      "--kubeconfig",
      join(dir, "kube", "config"),
      "--quiet",
      "--insecure-http",
    ];

    const first = await start(args, dir);
    expect(first.stdout[0]).toBe(`ready ${first.url}`);
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
    const running = await start(
      [
        "--port",
        "0",
        "--storage",
        "memory",
        "--kubeconfig",
        join(dir, "config"),
        "--quiet",
        "--insecure-http",
        "--controllers=*,-garbagecollector",
      ],
      dir,
    );
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${running.url}${path}`, {
        method,
        headers: { "Content-Type": "application/json" },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
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

  it("serves rbac.authorization.k8s.io with --insecure-http (AlwaysAllow), with the bootstrap policy, as kube-apiserver in every mode", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sample-gcp-"));
    dirs.push(dir);
    const running = await start(
      ["--port", "0", "--storage", "memory", "--kubeconfig", join(dir, "config"), "--quiet", "--insecure-http"],
      dir,
    );
    const groups = (await (await fetch(`${running.url}/apis`)).json()) as { groups: Array<{ name: string }> };
    expect(groups.groups.map((g) => g.name)).toContain("rbac.authorization.k8s.io");
    const deadline = Date.now() + 5_000;
    let names: string[] = [];
    while (!names.includes("cluster-admin")) {
      if (Date.now() > deadline) throw new Error(`no bootstrap ClusterRoles after 5 s: ${names.join(", ")}`);
      const list = (await (await fetch(`${running.url}/apis/rbac.authorization.k8s.io/v1/clusterroles`)).json()) as {
        items?: Array<{ metadata: { name: string } }>;
      };
      names = (list.items ?? []).map((r) => r.metadata.name);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const role = await fetch(`${running.url}/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ metadata: { name: "reader" }, rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }] }),
    });
    expect(role.status).toBe(201);
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

  it("compacts the storage at startup, not one --compaction-interval later", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sample-gcp-"));
    dirs.push(dir);
    const path = join(dir, "state.db");
    // 1,500 revisions of history: compaction keeps the last 1,000.
    const seed = await createSqliteStorage({ path, compactInterval: 0 });
    const configMap = (i: number) =>
      JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "default" }, data: { i: String(i) } });
    let kv = await seed.create("/registry/configmaps/default/c", configMap(0));
    for (let i = 1; i < 1500; i++) kv = await seed.update("/registry/configmaps/default/c", configMap(i), kv.modRevision);
    await seed.close();

    const server = await start(
      [
        "--port",
        "0",
        "--storage",
        `sqlite:${path}`,
        "--kubeconfig",
        join(dir, "kubeconfig"),
        "--compaction-interval",
        "1h",
        "--quiet",
        "--insecure-http",
      ],
      dir,
    );
    // A list at an early revision answers 410 Expired once that revision is compacted away.
    const oldList = () => fetch(`${server.url}/api/v1/namespaces/default/configmaps?resourceVersion=10&resourceVersionMatch=Exact`);
    const deadline = Date.now() + 10_000;
    let status = (await oldList()).status;
    while (status !== 410 && Date.now() < deadline) status = (await oldList()).status;
    expect(status).toBe(410);
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  });

  it("lets exactly one of two servers started at the same instant on one sqlite file win; the other exits with a clear message", async () => {
    const rounds = 5;
    const outcomes = await Promise.all(
      Array.from({ length: rounds }, async () => {
        const dir = mkdtempSync(join(tmpdir(), "sample-gcp-race-"));
        dirs.push(dir);
        const args = (n: number) => [
          "--port",
          "0",
          "--storage",
          `sqlite:${join(dir, "state.db")}`,
          "--kubeconfig",
          join(dir, `kubeconfig-${n}`),
          "--quiet",
          "--insecure-http",
        ];
        const results = await Promise.allSettled([start(args(1), dir), start(args(2), dir)]);
        const winners = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
        const failures = results.flatMap((r) => (r.status === "rejected" ? [String(r.reason)] : []));
        for (const winner of winners) {
          // The winner serves writes: it owns the file.
          const created = await fetch(`${winner.url}/api/v1/namespaces/default/configmaps`, {
            method: "POST",
            headers: { "Content-Type": "application/json" },
            body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "owner" } }),
          });
          expect(created.status).toBe(201);
          winner.child.kill("SIGTERM");
          expect(await winner.exited).toBe(0);
        }
        return { winners: winners.length, failures };
      }),
    );
    for (const outcome of outcomes) {
      expect(outcome.winners, JSON.stringify(outcome.failures)).toBe(1);
      expect(outcome.failures).toHaveLength(1);
      expect(outcome.failures[0]).toMatch(/exited with 1 before ready/);
      expect(outcome.failures[0]).toMatch(/is in use by another process/);
      // A clear message, not a stack trace.
      expect(outcome.failures[0]).not.toMatch(/\n\s+at /);
    }
  });

  it("rejects an unknown storage spec with a usage message and exit code 2", async () => {
    const child = spawn(process.execPath, [mainScript, "--storage", "postgres://x"], { stdio: ["ignore", "pipe", "pipe"] });
    children.add(child);
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('--storage must be "memory", "sqlite:<path>" or "etcd:<url>[,<url>...]", got "postgres://x"');
  });
});
