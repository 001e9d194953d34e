import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NetworkRegistryError } from "../errors.js";
import { CLAIM_FINALIZER, NETWORK_ALLOCATIONS, NETWORK_CLAIMS, type NetworkAllocationObject, type NetworkClaimObject } from "./api.js";
import { runArbiter, type Arbiter } from "./arbiter.js";
import { allocate, claim, createWhoisCache, release, watch } from "./client.js";
import { claimOf, eventually, startKanaPlane, type KanaPlane } from "./test-support.js";

const nodes = { group: "", resource: "nodes" };

describe("client library against a control plane and an arbiter", () => {
  let plane: KanaPlane;
  let arbiter: Arbiter;
  beforeAll(async () => {
    plane = await startKanaPlane();
    arbiter = await runArbiter({ config: plane.url, leaderElection: false, metricsPort: 0 });
    const pool = await claim(plane.client, {
      metadata: { name: "pods" },
      spec: { addressSpace: [{ reference: { group: "", resource: "pods" }, prefix: "10.244.0.0/22", delegateTo: ["kubelet"] }] },
    });
    expect(pool.status?.phase).toBe("Allocated");
  });
  afterAll(async () => {
    await arbiter?.stop();
    await plane?.close();
  });

  it("claim() applies with server-side apply and resolves with the decided status; applying again changes nothing", async () => {
    const first = await claim(plane.client, claimOf("dns", "10.53.0.0/16"));
    expect(first.status).toMatchObject({ phase: "Allocated", allocatedPrefixes: "10.53.0.0/16", observedGeneration: 1 });
    expect(first.metadata.managedFields?.some((f) => f.manager === "kana-client" && f.operation === "Apply")).toBe(true);
    const again = await claim(plane.client, claimOf("dns", "10.53.0.0/16"));
    expect(again.metadata.generation).toBe(1);
    expect(again.status?.addressSpace?.[0]?.date).toBe(first.status?.addressSpace?.[0]?.date);
  });

  it("claim() of a changed spec waits for the decision of the new generation", async () => {
    const changed = await claim(plane.client, claimOf("dns", "10.53.0.0/16", "10.54.0.0/16"));
    expect(changed.metadata.generation).toBe(2);
    expect(changed.status).toMatchObject({ phase: "Allocated", allocatedPrefixes: "10.53.0.0/16,10.54.0.0/16", observedGeneration: 2 });
  });

  it("claim() turns the server's refusal into an api-error naming the field", async () => {
    const error = await claim(plane.client, claimOf("bad", "10.0.0.1/8")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkRegistryError);
    expect(error).toMatchObject({ code: "api-error" });
    expect((error as Error).message).toContain('spec.addressSpace[0].prefix: Invalid value: "string": must be in canonical form');
  });

  it("allocate() gets a free block of the pool, never the same one twice; release() gives it back", async () => {
    const a = await allocate(plane.client, {
      claim: "kubelet",
      pool: "10.244.0.0/22",
      prefixLength: 24,
      reference: { ...nodes, name: "node-a" },
      strategy: "first-fit",
    });
    const b = await allocate(plane.client, {
      claim: "kubelet",
      pool: "10.244.0.0/22",
      prefixLength: 24,
      reference: { ...nodes, name: "node-b" },
      strategy: "first-fit",
    });
    expect(a.status).toMatchObject({ phase: "Allocated", prefix: "10.244.0.0/24", parent: { claim: "pods", prefix: "10.244.0.0/22" } });
    expect(b.status?.prefix).toBe("10.244.1.0/24");
    await release(plane.client, a.metadata.name);
    const c = await allocate(plane.client, {
      claim: "kubelet",
      pool: "10.244.0.0/22",
      prefixLength: 24,
      reference: { ...nodes, name: "node-c" },
      strategy: "first-fit",
    });
    expect(c.status?.prefix).toBe("10.244.0.0/24");
  });

  it("allocate() from a full pool throws pool-exhausted and deletes its request", async () => {
    await allocate(plane.client, { claim: "kubelet", pool: "10.244.0.0/22", prefixLength: 23, reference: { ...nodes, name: "node-d" } });
    const error = await allocate(plane.client, {
      claim: "kubelet",
      pool: "10.244.0.0/22",
      prefixLength: 24,
      reference: { ...nodes, name: "node-e" },
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "NetworkRegistryError", code: "pool-exhausted" });
    expect((error as Error).message).toBe("no free /24 left in 10.244.0.0/22 (100% used; largest free block none)");
    const left = (await plane.client.list<NetworkAllocationObject>(NETWORK_ALLOCATIONS)).items.map((o) => o.spec.reference.name).sort();
    expect(left).toEqual(["node-b", "node-c", "node-d"]);
  });

  it("allocate() of a specific block names the object after it; a second request for the block is refused by name", async () => {
    await claim(plane.client, {
      metadata: { name: "lb" },
      spec: { addressSpace: [{ reference: { group: "", resource: "services" }, prefix: "10.70.0.0/16", delegateTo: ["*"] }] },
    });
    const mine = await allocate(plane.client, {
      claim: "metallb",
      pool: "10.70.0.0/16",
      prefixLength: 28,
      prefix: "10.70.3.16/28",
      reference: { group: "", resource: "services", namespace: "web", name: "front" },
    });
    expect(mine.metadata.name).toBe("10.70.3.16-28");
    expect(mine.status).toMatchObject({ phase: "Allocated", prefix: "10.70.3.16/28" });
    const again = await allocate(plane.client, {
      claim: "other",
      pool: "10.70.0.0/16",
      prefixLength: 28,
      prefix: "10.70.3.16/28",
      reference: nodes,
    }).catch((e: unknown) => e);
    expect(again).toMatchObject({ code: "api-error" });
    expect((again as Error).message).toContain('networkallocations.kana.kubekit.io "10.70.3.16-28" already exists');
    const misfit = await allocate(plane.client, {
      claim: "other",
      pool: "10.70.0.0/16",
      prefixLength: 24,
      prefix: "10.71.0.0/24",
      reference: nodes,
    }).catch((e: unknown) => e);
    expect((misfit as Error).message).toContain(
      'spec.prefix: Invalid value: "object": must be a block of the pool with the requested prefixLength',
    );
    await release(plane.client, mine.metadata.name);
  });

  it("allocate() from a pool that does not delegate to the claim throws not-delegable", async () => {
    const error = await allocate(plane.client, { claim: "someone-else", pool: "10.244.0.0/22", prefixLength: 28, reference: nodes }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: "not-delegable" });
  });

  it("a claim with live allocations cannot go until they do (finalizer)", async () => {
    await plane.client.delete(NETWORK_CLAIMS, undefined, "pods");
    const held = await plane.client.get<NetworkClaimObject>(NETWORK_CLAIMS, undefined, "pods");
    expect(held.metadata.deletionTimestamp).toBeDefined();
    expect(held.metadata.finalizers).toEqual([CLAIM_FINALIZER]);
    // Still held while allocations remain: a later decision pass keeps the finalizer.
    await claim(plane.client, claimOf("pass-trigger", "10.60.0.0/16"));
    expect((await plane.client.get<NetworkClaimObject>(NETWORK_CLAIMS, undefined, "pods")).metadata.finalizers).toEqual([CLAIM_FINALIZER]);
    for (const object of (await plane.client.list<NetworkAllocationObject>(NETWORK_ALLOCATIONS)).items)
      await release(plane.client, object.metadata.name);
    await eventually("the pods claim to be gone", async () => {
      try {
        await plane.client.get(NETWORK_CLAIMS, undefined, "pods");
        return undefined;
      } catch (error) {
        return (error as { code?: number }).code === 404 ? true : undefined;
      }
    });
  });

  it("whois answers from the informer cache, following new decisions", async () => {
    const cache = await createWhoisCache(plane.client);
    try {
      expect(cache.whois("10.53.1.2").mostSpecific?.claim).toBe("dns");
      expect(cache.whois("10.61.0.0").mostSpecific).toBeUndefined();
      await claim(plane.client, claimOf("metallb", "10.61.0.0/24"));
      await eventually("whois to see metallb", () => (cache.whois("10.61.0.7").mostSpecific?.claim === "metallb" ? true : undefined));
      expect(cache.whois("10.61.0.0/24").exact.map((o) => o.claim)).toEqual(["metallb"]);
    } finally {
      await cache.close();
    }
  });

  it("watch() reports each decision once, with existing decided claims first", async () => {
    const seen: string[] = [];
    const handle = await watch(plane.client, (decided) => seen.push(`${decided.metadata.name}:${decided.status?.phase}`));
    try {
      expect(seen).toContain("dns:Allocated");
      const before = seen.length;
      await claim(plane.client, claimOf("ingress", "10.53.7.0/24"));
      await eventually("the ingress decision", () => (seen.includes("ingress:Conflict") ? true : undefined));
      expect(seen.slice(before)).toEqual(["ingress:Conflict"]);
    } finally {
      await handle.close();
    }
  });

  it("emits ClaimAllocated and ClaimConflict Events about the claims", async () => {
    const events = await eventually("events", async () => {
      const list = (
        await plane.client.list<{ reason?: string; message?: string; type?: string; involvedObject?: { name?: string; kind?: string } }>(
          { group: "", version: "v1", resource: "events", namespaced: true },
          "default",
        )
      ).items;
      return list.some((e) => e.reason === "ClaimConflict" && e.involvedObject?.name === "ingress") ? list : undefined;
    });
    expect(events.find((e) => e.reason === "ClaimConflict" && e.involvedObject?.name === "ingress")).toMatchObject({
      type: "Warning",
      involvedObject: { kind: "NetworkClaim" },
      message: expect.stringMatching(/^10\.53\.7\.0\/24 is inside 10\.53\.0\.0\/16 allocated to dns \(services\)/) as unknown,
    });
    expect(events.find((e) => e.reason === "ClaimAllocated" && e.involvedObject?.name === "metallb")).toMatchObject({ type: "Normal" });
  });

  it("serves metrics: addresses per pool and family, conflicts, exhaustion", async () => {
    const text = await (await fetch(arbiter.metricsUrl!)).text();
    expect(text).toContain('kana_pool_addresses{pool="10.53.0.0/16",claim="dns",family="IPv4"} 65536');
    expect(text).toMatch(/kana_claim_conflicts\{reason="Overlap"\} [1-9]/);
    expect(text).toContain('kana_allocation_failures_total{reason="pool-exhausted"} 1');
  });
});
