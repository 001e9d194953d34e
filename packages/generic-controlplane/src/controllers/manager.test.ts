import { afterEach, describe, expect, it } from "vitest";
import type { KubeObject } from "../api/types.js";
import { createControlPlane, type ControlPlane } from "../control-plane.js";
import { selectBuiltinResources } from "../control-plane/builtin-resources.js";
import { createMemoryStorage } from "../storage/memory.js";
import { KubeClient } from "./client.js";
import { LEASES } from "./leader-election.js";
import { dropManagedFields, type Informer } from "./informer.js";
import { ControllerManager, selectControllers } from "./manager.js";
import { CONFIGMAPS, NAMESPACES_REF, eventually, isGoneFrom } from "./test-support.js";

const planes: ControlPlane[] = [];
const clients: KubeClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  for (const plane of planes.splice(0)) await plane.close();
});

describe("selectControllers", () => {
  const known = ["namespace", "garbagecollector", "bootstrapsigner"];
  it("follows kube-controller-manager's --controllers syntax", () => {
    expect(selectControllers(["*"], known, ["bootstrapsigner"])).toEqual(["namespace", "garbagecollector"]);
    expect(selectControllers(["*,-garbagecollector"], known, ["bootstrapsigner"])).toEqual(["namespace"]);
    expect(selectControllers(["*", "bootstrapsigner"], known, ["bootstrapsigner"])).toEqual(known);
    expect(selectControllers(["garbagecollector"], known)).toEqual(["garbagecollector"]);
    expect(selectControllers([], known)).toEqual([]);
  });

  it("refuses unknown names", () => {
    expect(() => selectControllers(["*,-garbagecolector"], known)).toThrow('"garbagecolector" is not in the list of known controllers');
  });
});

async function plane(options: Parameters<typeof createControlPlane>[0]): Promise<ControlPlane> {
  const p = await createControlPlane({ port: 0, processMetrics: false, ...options });
  planes.push(p);
  return p;
}

function client(p: ControlPlane): KubeClient {
  const c = new KubeClient(p.url);
  clients.push(c);
  return c;
}

describe("createControlPlane({ controllers })", () => {
  it("runs the selected controllers under a kube-system Lease and exports their metrics", async () => {
    const p = await plane({ controllers: { controllers: ["*", "-garbagecollector"] } });
    expect(p.controllers?.controllers).toEqual(["namespace", "serviceaccount", "eventttl", "resourcequota"]);
    const c = client(p);
    const lease = await eventually("the controller manager lease", async () => {
      try {
        return await c.get<KubeObject & { spec: { holderIdentity?: string } }>(LEASES, "kube-system", "kube-controller-manager");
      } catch {
        return undefined;
      }
    });
    expect(lease.spec.holderIdentity).toMatch(/_[0-9a-f-]{36}$/);
    await c.create(NAMESPACES_REF, undefined, { metadata: { name: "short-lived" } });
    await c.delete(NAMESPACES_REF, undefined, "short-lived");
    await eventually(
      "the namespace to go",
      async () => ((await isGoneFrom(c, NAMESPACES_REF, undefined, "short-lived")) ? true : undefined),
      5_000,
    );
    const metrics = await (await fetch(`${p.url}/metrics`)).text();
    expect(metrics).toContain('workqueue_adds_total{name="namespace"}');
    expect(metrics).toContain('leader_election_master_status{name="kube-controller-manager"} 1');
    expect(metrics).not.toContain("garbage_collector_attempt_to_delete");
  });

  it("by default runs only the controllers whose resources are served, without election when leases are not", async () => {
    const p = await plane({ resources: selectBuiltinResources(["namespaces", "configmaps"]), controllers: true });
    expect(p.controllers?.controllers).toEqual(["namespace", "garbagecollector"]);
    await eventually("the controllers to run", () => (p.controllers?.running ? true : undefined));
    await expect(
      createControlPlane({
        port: 0,
        processMetrics: false,
        resources: selectBuiltinResources(["namespaces"]),
        controllers: { leaderElection: {} },
      }),
    ).rejects.toThrow("leader election needs leases.coordination.k8s.io to be served");
  });

  it("rejects an unknown controller name", async () => {
    await expect(createControlPlane({ port: 0, processMetrics: false, controllers: { controllers: ["nope"] } })).rejects.toThrow(
      '"nope" is not in the list of known controllers',
    );
  });

  it("two control planes on one store: exactly one runs the controllers; closing it hands over", async () => {
    const storage = createMemoryStorage();
    const election = { leaseDurationMs: 1_500, renewDeadlineMs: 1_000, retryPeriodMs: 200 };
    // The shared store is closed by the test, not by either plane.
    const shared = new Proxy(storage, {
      get: (target, property) => {
        if (property === "close") return () => Promise.resolve();
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const a = await plane({ storage: shared, controllers: { leaderElection: election } });
    const b = await plane({ storage: shared, controllers: { leaderElection: election } });
    const leader = await eventually("a leader", () => (a.controllers?.running ? a : b.controllers?.running ? b : undefined));
    const follower = leader === a ? b : a;
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(follower.controllers?.running).toBe(false);
    expect([a.controllers?.running, b.controllers?.running].filter(Boolean)).toHaveLength(1);
    await leader.close();
    await eventually("the other plane to take over", () => (follower.controllers?.running ? true : undefined), 3_000);
    const c = client(follower);
    await c.create(NAMESPACES_REF, undefined, { metadata: { name: "after-handover" } });
    await c.delete(NAMESPACES_REF, undefined, "after-handover");
    await eventually(
      "the namespace to go",
      async () => ((await isGoneFrom(c, NAMESPACES_REF, undefined, "after-handover")) ? true : undefined),
      5_000,
    );
    await storage.close();
  });
});

describe("ControllerManager({ informerTransform })", () => {
  it("gives every controller's shared informers the transform, as kube-controller-manager drops managed fields", async () => {
    const p = await plane({});
    const named = new KubeClient({ server: p.url, userAgent: "manager-test" });
    clients.push(named);
    await named.create(CONFIGMAPS, "default", { metadata: { name: "cm" }, data: { a: "1" } });
    let informer: Informer | undefined;
    const manager = new ControllerManager({
      client: named,
      controllers: ["probe"],
      extraControllers: [
        {
          name: "probe",
          async run(context, signal) {
            informer = context.informers.informerFor(CONFIGMAPS);
            context.informers.start();
            await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
          },
        },
      ],
      leaderElection: false,
      informerTransform: dropManagedFields,
    });
    manager.start();
    try {
      const cached = await eventually("the cached configmap", () => informer?.cache.get("default/cm"));
      expect((await named.get(CONFIGMAPS, "default", "cm")).metadata?.managedFields).toHaveLength(1);
      expect(cached.metadata?.managedFields).toBeUndefined();
      expect(cached["data"]).toEqual({ a: "1" });
    } finally {
      await manager.stop();
    }
  });
});
