import { KubeClient, type ResourceRef } from "@kubekit/generic-controlplane/controllers";
import type { KubeObject } from "@kubekit/generic-controlplane";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NETWORK_CLAIM_API_VERSION, NETWORK_CLAIM_KIND } from "../types.js";
import {
  NETWORK_ALLOCATIONS,
  NETWORK_ALLOCATION_KIND,
  NETWORK_CLAIMS,
  type NetworkAllocationObject,
  type NetworkClaimObject,
} from "./api.js";
import { runArbiter, type Arbiter } from "./arbiter.js";
import { claimOf, eventually, pods, startKanaPlane, type KanaPlane } from "./test-support.js";

/** A client whose status writes each take a while, counting how many are in flight; one allocation's write always fails. */
class SlowStatusClient extends KubeClient {
  inFlight = 0;
  maxInFlight = 0;

  override async update<T extends KubeObject = KubeObject>(
    ref: ResourceRef,
    namespace: string | undefined,
    object: KubeObject,
    subresource?: string,
    signal?: AbortSignal,
  ): Promise<T> {
    if (subresource !== "status") return super.update<T>(ref, namespace, object, subresource, signal);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      await new Promise((resolve) => setTimeout(resolve, 30));
      if (object.metadata?.name === "block-0") throw new Error("etcdserver: request timed out");
      return await super.update<T>(ref, namespace, object, subresource, signal);
    } finally {
      this.inFlight--;
    }
  }
}

describe("arbiter status writes", () => {
  let plane: KanaPlane;
  let client: SlowStatusClient;
  let arbiter: Arbiter | undefined;
  beforeAll(async () => {
    plane = await startKanaPlane();
    client = new SlowStatusClient(plane.url);
  });
  afterAll(async () => {
    await arbiter?.stop();
    client?.close();
    await plane?.close();
  });

  it("are made concurrently (bounded), and one that keeps failing holds up no other", { timeout: 60_000 }, async () => {
    await plane.client.create(NETWORK_CLAIMS, undefined, {
      apiVersion: NETWORK_CLAIM_API_VERSION,
      kind: NETWORK_CLAIM_KIND,
      ...claimOf("pool", "10.0.0.0/16"),
    });
    const pool = await plane.client.get<NetworkClaimObject>(NETWORK_CLAIMS, undefined, "pool");
    await plane.client.update(NETWORK_CLAIMS, undefined, {
      ...pool,
      spec: { addressSpace: [{ reference: pods, prefix: "10.0.0.0/16", delegateTo: ["*"] }] },
    });
    for (let i = 0; i < 40; i++) {
      await plane.client.create(NETWORK_ALLOCATIONS, undefined, {
        apiVersion: NETWORK_CLAIM_API_VERSION,
        kind: NETWORK_ALLOCATION_KIND,
        metadata: { name: `block-${i}` },
        spec: { claim: "kubelet", pool: "10.0.0.0/16", prefixLength: 24, reference: { ...pods, name: `node-${i}` } },
      });
    }
    arbiter = await runArbiter({ config: client, leaderElection: false });
    const decided = await eventually(
      "every other allocation to be decided",
      async () => {
        const list = await plane.client.list<NetworkAllocationObject>(NETWORK_ALLOCATIONS);
        const done = list.items.filter((a) => a.metadata.name !== "block-0" && a.status?.phase === "Allocated");
        return done.length === 39 ? done : undefined;
      },
      30_000,
    );
    expect(new Set(decided.map((a) => a.status!.prefix)).size).toBe(39);
    expect(client.maxInFlight).toBeGreaterThan(1);
    expect(client.maxInFlight).toBeLessThanOrEqual(32);
  });
});
