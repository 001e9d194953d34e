import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startEtcd, type EtcdProcess } from "../../../packages/generic-controlplane/test/harness/etcd.js";
import { startBinary, type RunningBinary } from "./binary.test-support.js";

// Several API servers on one etcd, as kube-apiserver runs highly available: every write through one
// is read and watched through the others, in one revision order, and the controllers run in one place.

interface ConfigMap {
  metadata: { name: string; resourceVersion: string };
}
interface Lease {
  spec: { holderIdentity?: string; leaseTransitions?: number; renewTime?: string };
}
interface WatchEvent {
  type: string;
  object: ConfigMap;
}

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function etcdMember(): Promise<EtcdProcess> {
  const etcd = await startEtcd();
  cleanup.push(() => etcd.stop());
  return etcd;
}

async function server(etcd: EtcdProcess, name: string): Promise<RunningBinary> {
  const dir = mkdtempSync(join(tmpdir(), `sample-gcp-${name}-`));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const running = await startBinary(
    ["--port", "0", "--storage", `etcd:${etcd.endpoint}`, "--kubeconfig", join(dir, "kubeconfig"), "--quiet", "--insecure-http"],
    dir,
  );
  cleanup.push(() => {
    if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill("SIGKILL");
  });
  return running;
}

const configMaps = (url: string) => `${url}/api/v1/namespaces/default/configmaps`;

async function create(url: string, name: string): Promise<ConfigMap> {
  const response = await fetch(configMaps(url), {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { n: name } }),
  });
  if (response.status !== 201) throw new Error(`create ${name} through ${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as ConfigMap;
}

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`GET ${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** A watch of the default namespace's configmaps through `url`, from `resourceVersion`. */
function watchConfigMaps(url: string, resourceVersion: string): { events: WatchEvent[]; errors: unknown[]; stop(): void } {
  const controller = new AbortController();
  const events: WatchEvent[] = [];
  const errors: unknown[] = [];
  void (async () => {
    const response = await fetch(`${configMaps(url)}?watch=true&resourceVersion=${resourceVersion}&allowWatchBookmarks=false`, {
      signal: controller.signal,
    });
    const decoder = new TextDecoder();
    let buffered = "";
    for await (const chunk of response.body!) {
      buffered += decoder.decode(chunk as Uint8Array, { stream: true });
      let newline: number;
      while ((newline = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (line !== "") events.push(JSON.parse(line) as WatchEvent);
      }
    }
  })().catch((error: unknown) => {
    if (!controller.signal.aborted) errors.push(error);
  });
  cleanup.push(() => controller.abort());
  return { events, errors, stop: () => controller.abort() };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** One sample's value from a server's /metrics, or undefined when the series is absent. */
async function metric(url: string, series: string): Promise<number | undefined> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split("\n").find((entry) => entry.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const lease = (url: string) => getJson<Lease>(`${url}/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager`);

describe("sample-generic-controlplane on etcd", () => {
  it("serves one store through two servers: writes through one are read and watched in order through the other; one controller leader", async () => {
    const etcd = await etcdMember();
    const a = await server(etcd, "a");
    const leaderA = await until(
      "the first server takes the controller Lease",
      async () => (await lease(a.url)).spec.holderIdentity,
      20_000,
    );
    const b = await server(etcd, "b");
    const start = (await getJson<{ metadata: { resourceVersion: string } }>(configMaps(b.url))).metadata.resourceVersion;
    const watch = watchConfigMaps(b.url, start);

    const acknowledged: ConfigMap[] = [];
    for (let batch = 0; batch < 10; batch++) {
      acknowledged.push(...(await Promise.all(Array.from({ length: 10 }, (_, i) => create(a.url, `cm-${batch * 10 + i}`)))));
    }
    await until(
      "the watch on the other server delivers every write",
      () => Promise.resolve(watch.events.length >= 100 ? true : undefined),
      20_000,
    );
    const revisions = watch.events.map((event) => Number(event.object.metadata.resourceVersion));
    expect(watch.events.every((event) => event.type === "ADDED")).toBe(true);
    expect(revisions).toEqual([...revisions].sort((x, y) => x - y));
    expect(new Set(revisions).size).toBe(100);
    expect(new Set(revisions)).toEqual(new Set(acknowledged.map((cm) => Number(cm.metadata.resourceVersion))));
    // Reads through the other server see each write at the revision its writer acknowledged.
    for (const cm of acknowledged.slice(0, 10)) {
      expect((await getJson<ConfigMap>(`${configMaps(b.url)}/${cm.metadata.name}`)).metadata.resourceVersion).toBe(
        cm.metadata.resourceVersion,
      );
    }
    // The controllers elected one leader: both servers read the same holder, the one that started first.
    expect((await lease(b.url)).spec.holderIdentity).toBe(leaderA);
    // Exactly one runs them: only the leader reports leading, and only its queues see a new namespace.
    expect(await metric(a.url, 'leader_election_master_status{name="kube-controller-manager"}')).toBe(1);
    // A backup reports nothing until it has led once (then 0).
    expect(await metric(b.url, 'leader_election_master_status{name="kube-controller-manager"}')).toBeUndefined();
    const created = await fetch(`${b.url}/api/v1/namespaces`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: "ha" } }),
    });
    expect(created.status).toBe(201);
    await until(
      "the leader's serviceaccount controller creates the default ServiceAccount",
      () => getJson(`${b.url}/api/v1/namespaces/ha/serviceaccounts/default`),
      20_000,
    );
    expect(await metric(a.url, 'workqueue_adds_total{name="serviceaccount"}')).toBeGreaterThan(0);
    expect(await metric(b.url, 'workqueue_adds_total{name="serviceaccount"}')).toBeUndefined();
    expect(watch.errors).toEqual([]);
  }, 90_000);

  it("loses no acknowledged write when one server is killed under load; the survivor's watchers see every event in order and it takes over the controllers", async () => {
    const etcd = await etcdMember();
    const a = await server(etcd, "a");
    const leaderA = await until(
      "the first server takes the controller Lease",
      async () => (await lease(a.url)).spec.holderIdentity,
      20_000,
    );
    const before = await lease(a.url);
    const b = await server(etcd, "b");
    const start = (await getJson<{ metadata: { resourceVersion: string } }>(configMaps(b.url))).metadata.resourceVersion;
    const watch = watchConfigMaps(b.url, start);

    // Four writers, each with both endpoints: a writer whose server fails moves to the other one.
    const acknowledged: ConfigMap[] = [];
    let next = 0;
    let killed = false;
    let killedAt = 0;
    const writer = async (preferred: RunningBinary, other: RunningBinary): Promise<void> => {
      let target = preferred;
      while (acknowledged.length < 200) {
        const name = `load-${next++}`;
        try {
          acknowledged.push(await create(target.url, name));
        } catch {
          // The write may or may not have happened; only acknowledged writes are checked.
          target = other;
        }
        if (!killed && acknowledged.length >= 60) {
          killed = true;
          killedAt = Date.now();
          a.child.kill("SIGKILL");
        }
      }
    };
    await Promise.all([writer(a, b), writer(b, a), writer(a, b), writer(b, a)]);
    expect(killed).toBe(true);
    expect(await a.exited).toBe(null);

    const listed = await getJson<{ items: ConfigMap[] }>(configMaps(b.url));
    const stored = new Map(listed.items.map((cm) => [cm.metadata.name, cm.metadata.resourceVersion]));
    for (const cm of acknowledged) expect(stored.get(cm.metadata.name), cm.metadata.name).toBe(cm.metadata.resourceVersion);
    await until(
      "the survivor's watch delivers every stored object",
      () => Promise.resolve(watch.events.length >= stored.size ? true : undefined),
      20_000,
    );
    const revisions = watch.events.map((event) => Number(event.object.metadata.resourceVersion));
    expect(revisions).toEqual([...revisions].sort((x, y) => x - y));
    expect(new Set(watch.events.map((event) => event.object.metadata.name))).toEqual(new Set(stored.keys()));
    expect(watch.errors).toEqual([]);

    // The Lease expires (15 s) and the survivor's controllers take it over.
    const taken = await until(
      "the surviving server takes the controller Lease",
      async () => {
        const current = await lease(b.url);
        return current.spec.holderIdentity !== leaderA ? current : undefined;
      },
      45_000,
    );
    // Within the lease duration (15 s) plus one retry period (2 s), and a little scheduling slack.
    expect(Date.now() - killedAt).toBeLessThan(20_000);
    expect(taken.spec.holderIdentity).toBeTruthy();
    expect(taken.spec.leaseTransitions).toBe((before.spec.leaseTransitions ?? 0) + 1);
    expect(await metric(b.url, 'leader_election_master_status{name="kube-controller-manager"}')).toBe(1);
  }, 120_000);
});
