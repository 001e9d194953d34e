import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Registry } from "prom-client";
import { afterEach, describe, expect, it } from "vitest";
import type { KubeObject } from "../api/types.js";
import { startTestPlane, type TestPlane } from "../server/test-support.js";
import { KubeClient } from "./client.js";
import { LEASES, LeaderElector } from "./leader-election.js";
import { eventually } from "./test-support.js";

let t: TestPlane | undefined;
const stops: AbortController[] = [];
const runs: Promise<void>[] = [];
afterEach(async () => {
  for (const s of stops.splice(0)) s.abort();
  await Promise.all(runs.splice(0));
  await t?.close();
  t = undefined;
});

interface Candidate {
  elector: LeaderElector;
  stop: AbortController;
  run: Promise<void>;
  leading: () => boolean;
}

function candidate(client: KubeClient, identity: string, options: { releaseOnCancel?: boolean; registry?: Registry } = {}): Candidate {
  let leading = false;
  const stop = new AbortController();
  const elector = new LeaderElector({
    client,
    namespace: "kube-system",
    name: "test-controllers",
    identity,
    leaseDurationMs: 1_500,
    renewDeadlineMs: 1_000,
    retryPeriodMs: 200,
    ...options,
    onStartedLeading(signal) {
      leading = true;
      signal.addEventListener("abort", () => (leading = false));
    },
  });
  const run = elector.run(stop.signal);
  stops.push(stop);
  runs.push(run);
  return { elector, stop, run, leading: () => leading };
}

async function lease(client: KubeClient): Promise<{ spec: Record<string, unknown> } & KubeObject> {
  return client.get(LEASES, "kube-system", "test-controllers");
}

describe("LeaderElector", () => {
  it("elects exactly one of two candidates; a clean stop releases the lease and the other takes over at once", async () => {
    t = await startTestPlane();
    const client = new KubeClient(t.url);
    const registry = new Registry();
    const a = candidate(client, "a", { registry });
    const b = candidate(client, "b");
    const first = await eventually("a leader", () => (a.leading() ? a : b.leading() ? b : undefined));
    const second = first === a ? b : a;
    expect(second.leading()).toBe(false);
    const held = await lease(client);
    expect(held.spec.holderIdentity).toBe(first === a ? "a" : "b");
    expect(held.spec.leaseDurationSeconds).toBe(2);
    expect(held.spec.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    if (first === a) expect(await registry.metrics()).toContain('leader_election_master_status{name="test-controllers"} 1');

    const stoppedAt = Date.now();
    first.stop.abort();
    await first.run;
    expect(first.leading()).toBe(false);
    await eventually("the other candidate to lead", () => (second.leading() ? true : undefined));
    // Released, not expired: the handover does not wait out the lease duration.
    expect(Date.now() - stoppedAt).toBeLessThan(1_500);
    const after = await lease(client);
    expect(after.spec.holderIdentity).toBe(second === a ? "a" : "b");
    expect(after.spec.leaseTransitions).toBe(1);
    client.close();
  });

  it("a leader that vanishes without releasing is replaced once the lease duration has passed", async () => {
    t = await startTestPlane();
    const client = new KubeClient(t.url);
    const a = candidate(client, "a", { releaseOnCancel: false });
    await eventually("a to lead", () => (a.leading() ? true : undefined));
    const b = candidate(client, "b");
    const goneAt = Date.now();
    a.stop.abort();
    await a.run;
    expect((await lease(client)).spec.holderIdentity).toBe("a");
    await eventually("b to take over", () => (b.leading() ? true : undefined), 5_000);
    // Not before the lease duration after the last renewal b saw (which can precede a's end by a retry period).
    expect(Date.now() - goneAt).toBeGreaterThanOrEqual(1_500 - 200);
    client.close();
  });

  it("a leader that cannot renew before the deadline stops leading", async () => {
    t = await startTestPlane();
    const client = new KubeClient(t.url);
    const a = candidate(client, "a");
    await eventually("a to lead", () => (a.leading() ? true : undefined));
    // Someone else takes the lease over (as after a long pause of this process).
    const current = await lease(client);
    await client.update(LEASES, "kube-system", {
      ...current,
      spec: { ...current.spec, holderIdentity: "intruder", renewTime: new Date(Date.now() + 60_000).toISOString().replace("Z", "000Z") },
    });
    await eventually("a to stop leading", () => (a.leading() ? undefined : true), 5_000);
    expect(a.elector.leader).toBe("intruder");
    client.close();
  });

  it("stops leading by the renew deadline when the API server stops answering", async () => {
    const fake = await fakeLeaseServer();
    let stoppedAt: number | undefined;
    const stop = new AbortController();
    const elector = hungElector(fake.client, () => (stoppedAt ??= Date.now()));
    const run = elector.run(stop.signal);
    try {
      await eventually("a to lead", () => (elector.isLeader ? true : undefined));
      const hangAt = Date.now();
      fake.hang(true);
      await eventually("a to stop leading", () => (stoppedAt !== undefined ? true : undefined), 5_000);
      // The last renewal was at most one retry period before the hang; the deadline runs from it.
      expect(stoppedAt! - hangAt).toBeLessThanOrEqual(1_000 + 200 + 300);
    } finally {
      stop.abort();
      fake.hang(false);
      await run;
      await fake.close();
    }
  });

  it("a leader stopped while the API server hangs gives up releasing at the renew deadline", async () => {
    const fake = await fakeLeaseServer();
    const stop = new AbortController();
    const elector = hungElector(fake.client, () => undefined);
    const run = elector.run(stop.signal);
    try {
      await eventually("a to lead", () => (elector.isLeader ? true : undefined));
      fake.hang(true);
      const stoppingAt = Date.now();
      stop.abort();
      await run;
      expect(Date.now() - stoppingAt).toBeLessThan(1_000 + 500);
    } finally {
      fake.hang(false);
      await fake.close();
    }
  });
});

function hungElector(client: KubeClient, onStoppedLeading: () => void): LeaderElector {
  return new LeaderElector({
    client,
    namespace: "kube-system",
    name: "test-controllers",
    identity: "a",
    leaseDurationMs: 1_500,
    renewDeadlineMs: 1_000,
    retryPeriodMs: 200,
    onStartedLeading: () => undefined,
    onStoppedLeading,
  });
}

/** A minimal Lease API on 127.0.0.1 that can be made to stop answering (as a partitioned or overloaded server would). */
async function fakeLeaseServer() {
  let lease: KubeObject | undefined;
  let revision = 1;
  let hanging = false;
  const hung: ServerResponse[] = [];
  const status = (code: number, reason: string) =>
    JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", reason, code, message: reason, metadata: {} });
  const server = createServer((req, res) => {
    if (hanging) {
      hung.push(res);
      return;
    }
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      res.setHeader("Content-Type", "application/json");
      if (req.method === "GET") {
        if (lease === undefined) res.writeHead(404).end(status(404, "NotFound"));
        else res.end(JSON.stringify(lease));
        return;
      }
      const object = JSON.parse(body) as KubeObject;
      if (req.method === "PUT" && object.metadata?.resourceVersion !== lease?.metadata?.resourceVersion) {
        res.writeHead(409).end(status(409, "Conflict"));
        return;
      }
      lease = { ...object, metadata: { ...object.metadata, resourceVersion: String(++revision) } };
      res.writeHead(req.method === "POST" ? 201 : 200).end(JSON.stringify(lease));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const client = new KubeClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  return {
    client,
    hang(on: boolean) {
      hanging = on;
      if (!on) for (const res of hung.splice(0)) res.destroy();
    },
    async close() {
      client.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
