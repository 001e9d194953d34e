import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { createControlPlane, type ControlPlane } from "@kubekit/generic-controlplane";

const main = join(import.meta.dirname, "..", "dist", "main.js");
const children = new Set<ChildProcess>();
const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const child of children) child.kill("SIGKILL");
  children.clear();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Running {
  url: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  /** Everything logged to stderr so far. */
  stderr(): string;
}

function start(args: string[]): Promise<Running> {
  if (!existsSync(main)) throw new Error(`${main} is missing: run "npm run build" first`);
  const child = spawn(process.execPath, [main, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr = (stderr + chunk).slice(-64_000)));
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => {
      children.delete(child);
      resolve(code);
    }),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready in time; stderr: ${stderr}`)), 20_000);
    createInterface({ input: child.stdout }).on("line", (line) => {
      const match = /^ready (http:\/\/\S+)$/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[1]!, child, exited, stderr: () => stderr });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before ready; stderr: ${stderr}`));
    });
  });
}

/** An API server without controllers, and a kubeconfig for it. */
async function apiServer(): Promise<{ plane: ControlPlane; kubeconfig: string }> {
  const dir = mkdtempSync(join(tmpdir(), "sample-kcm-"));
  const plane = await createControlPlane({ port: 0, processMetrics: false });
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  cleanups.push(() => plane.close());
  const kubeconfig = join(dir, "kubeconfig");
  await plane.writeKubeconfig(kubeconfig);
  return { plane, kubeconfig };
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function api(plane: ControlPlane) {
  return async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${plane.url}${path}`, {
      method,
      headers: { "Content-Type": "application/json" },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, json: (await res.json()) as { metadata?: { uid?: string }; spec?: { holderIdentity?: string } } };
  };
}

const fastElection = [
  "--leader-elect-lease-duration",
  "2s",
  "--leader-elect-renew-deadline",
  "1500ms",
  "--leader-elect-retry-period",
  "500ms",
];

describe("sample-controller-manager binary", () => {
  it("runs the controllers against a kubeconfig's server, serves /metrics, and releases its Lease on SIGTERM", async () => {
    const { plane, kubeconfig } = await apiServer();
    const call = api(plane);
    const manager = await start(["--kubeconfig", kubeconfig, "--port", "0", ...fastElection]);
    expect(await (await fetch(`${manager.url}/healthz`)).text()).toBe("ok");
    const lease = await waitFor(
      "the leader lease",
      async () => {
        const answer = await call("GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager");
        return answer.status === 200 && answer.json.spec?.holderIdentity ? answer.json : undefined;
      },
      10_000,
    );
    expect(lease.spec?.holderIdentity).toMatch(/_[0-9a-f-]{36}$/);

    // Garbage collection: a configmap owning a secret, deleted in the background.
    const owner = await call("POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: "owner" } });
    const ownerReferences = [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.json.metadata?.uid }];
    expect((await call("POST", "/api/v1/namespaces/default/secrets", { metadata: { name: "dependent", ownerReferences } })).status).toBe(
      201,
    );
    expect((await call("DELETE", "/api/v1/namespaces/default/configmaps/owner")).status).toBe(200);
    await waitFor(
      "the dependent to be collected",
      async () => ((await call("GET", "/api/v1/namespaces/default/secrets/dependent")).status === 404 ? true : undefined),
      10_000,
    );

    // Namespace deletion (a separate process waits upstream's 5 s grace before emptying it).
    expect((await call("POST", "/api/v1/namespaces", { metadata: { name: "doomed" } })).status).toBe(201);
    expect((await call("POST", "/api/v1/namespaces/doomed/configmaps", { metadata: { name: "c" } })).status).toBe(201);
    expect((await call("DELETE", "/api/v1/namespaces/doomed")).status).toBe(200);
    await waitFor(
      "the namespace to go",
      async () => ((await call("GET", "/api/v1/namespaces/doomed")).status === 404 ? true : undefined),
      15_000,
    );

    const metrics = await (await fetch(`${manager.url}/metrics`)).text();
    expect(metrics).toContain('workqueue_adds_total{name="namespace"}');
    expect(metrics).toContain('workqueue_adds_total{name="garbage_collector_attempt_to_delete"}');
    expect(metrics).toContain('leader_election_master_status{name="kube-controller-manager"} 1');

    manager.child.kill("SIGTERM");
    expect(await manager.exited).toBe(0);
    const released = await call("GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager");
    expect(released.json.spec?.holderIdentity).toBeUndefined();
  }, 60_000);

  it("a second manager takes over within the lease duration after the leader is killed with SIGKILL", async () => {
    const { plane, kubeconfig } = await apiServer();
    const call = api(plane);
    const holder = async () =>
      (await call("GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager")).json.spec?.holderIdentity;
    const first = await start(["--kubeconfig", kubeconfig, "--port", "0", ...fastElection]);
    const leader = await waitFor("a leader", holder, 10_000);
    const second = await start(["--kubeconfig", kubeconfig, "--port", "0", ...fastElection]);
    // Only one leads while both run.
    const metricsOf = async (m: Running) =>
      (await (await fetch(`${m.url}/metrics`)).text()).includes('leader_election_master_status{name="kube-controller-manager"} 1');
    await waitFor(
      "the second manager to find the lease held",
      () => Promise.resolve(second.stderr().includes("lock is held by another candidate") ? true : undefined),
      5_000,
    );
    expect(await metricsOf(first)).toBe(true);
    expect(await metricsOf(second)).toBe(false);

    const killedAt = Date.now();
    first.child.kill("SIGKILL");
    await first.exited;
    const next = await waitFor(
      "another leader",
      async () => {
        const current = await holder();
        return current !== undefined && current !== leader ? current : undefined;
      },
      10_000,
    );
    // The lease duration (2 s) after the last renewal the second saw, which it sees up to one
    // jittered retry period (500 ms x 2.2) late, plus one more retry period to take over.
    expect(Date.now() - killedAt).toBeLessThan(2_000 + 2 * 1_100 + 500);
    expect(next).not.toBe(leader);
    expect(await metricsOf(second)).toBe(true);
  }, 60_000);
});
