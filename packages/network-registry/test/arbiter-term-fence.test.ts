import { KubeClient, LEASES, type ResourceRef } from "@kubekit/generic-controlplane/controllers";
import type { KubeObject } from "@kubekit/generic-controlplane";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NETWORK_CLAIM_API_VERSION, NETWORK_CLAIM_KIND } from "../src/types.js";
import {
  ARBITER_NAME,
  NETWORK_ALLOCATIONS,
  NETWORK_ALLOCATION_KIND,
  NETWORK_CLAIMS,
  type NetworkAllocationObject,
} from "../src/kube/api.js";
import { runArbiter, type Arbiter } from "../src/kube/arbiter.js";
import { eventually, pods, startKanaPlane, type KanaPlane } from "../src/kube/test-support.js";

/*
 * A leader's status writes in flight when it loses its Lease (a pause, a slow network) must not
 * land after the new leader's: the new leader decides from what is stored, so a late write from
 * the old term could give a block it has since given to another object. Every status write is
 * fenced by the leadership term it was decided in.
 */

/** A client whose status writes of one allocation wait until let go, as a write delayed in the network. */
class HeldWriteClient extends KubeClient {
  held: KubeObject | undefined;
  settled: Promise<unknown> | undefined;
  #release!: () => void;
  readonly #gate = new Promise<void>((resolve) => (this.#release = resolve));

  letGo(): void {
    this.#release();
  }

  override async update<T extends KubeObject = KubeObject>(
    ref: ResourceRef,
    namespace: string | undefined,
    object: KubeObject,
    subresource?: string,
    signal?: AbortSignal,
  ): Promise<T> {
    if (subresource !== "status" || object.metadata?.name !== "block-x")
      return super.update<T>(ref, namespace, object, subresource, signal);
    this.held = object;
    const write = this.#gate.then(() => super.update<T>(ref, namespace, object, subresource, signal));
    this.settled = write.then(
      () => "written",
      (error: unknown) => error,
    );
    return write;
  }
}

const allocation = (name: string): KubeObject => ({
  apiVersion: NETWORK_CLAIM_API_VERSION,
  kind: NETWORK_ALLOCATION_KIND,
  metadata: { name },
  spec: { claim: "kubelet", pool: "10.0.0.0/16", prefixLength: 24, reference: { ...pods, name } },
});

describe("a leader that lost its Lease mid-pass", { timeout: 60_000 }, () => {
  let plane: KanaPlane;
  let client: HeldWriteClient;
  let arbiter: Arbiter | undefined;
  beforeAll(async () => {
    plane = await startKanaPlane();
    client = new HeldWriteClient(plane.url);
  });
  afterAll(async () => {
    client?.letGo();
    await arbiter?.stop();
    client?.close();
    await plane?.close();
  });

  it("cannot land a status write after a new leader took over", async () => {
    await plane.client.create(NETWORK_CLAIMS, undefined, {
      apiVersion: NETWORK_CLAIM_API_VERSION,
      kind: NETWORK_CLAIM_KIND,
      metadata: { name: "pool" },
      spec: { addressSpace: [{ reference: pods, prefix: "10.0.0.0/16", delegateTo: ["*"] }] },
    });
    await plane.client.create(NETWORK_ALLOCATIONS, undefined, allocation("block-x"));
    arbiter = await runArbiter({
      config: client,
      leaderElection: { identity: "old-leader", leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 500 },
    });
    const held = await eventually("the old leader's write of block-x to be in flight", () => client.held);
    const block = (held.status as { prefix: string }).prefix;

    // A new leader takes the Lease (as an elector does once the old one's has run out) ...
    const lease = await plane.client.get<KubeObject & { spec: { leaseTransitions?: number } }>(LEASES, "kube-system", ARBITER_NAME);
    const now = new Date().toISOString().replace("Z", "000Z");
    await plane.client.update(LEASES, "kube-system", {
      ...lease,
      spec: {
        ...lease.spec,
        holderIdentity: "new-leader",
        leaseDurationSeconds: 60,
        acquireTime: now,
        renewTime: now,
        leaseTransitions: (lease.spec.leaseTransitions ?? 0) + 1,
      },
    });
    // ... and, deciding from what is stored (block-x has no block yet), gives that block to another request.
    await plane.client.create(NETWORK_ALLOCATIONS, undefined, allocation("block-y"));
    const y = await plane.client.get<NetworkAllocationObject>(NETWORK_ALLOCATIONS, undefined, "block-y");
    await plane.client.update(
      NETWORK_ALLOCATIONS,
      undefined,
      {
        ...y,
        status: {
          ...(held.status as object),
          sequence: 1,
          ...(Object.hasOwn(held.status as object, "term") ? { term: (lease.spec.leaseTransitions ?? 0) + 1 } : {}),
        },
      },
      "status",
    );

    client.letGo();
    expect(String(await client.settled)).toContain(
      `the status of block-x was decided in leadership term ${lease.spec.leaseTransitions ?? 0}, but the Lease kube-system/kana-arbiter is in term ${(lease.spec.leaseTransitions ?? 0) + 1}`,
    );
    const stored = (await plane.client.list<NetworkAllocationObject>(NETWORK_ALLOCATIONS)).items;
    const holders = stored.filter((a) => a.status?.phase === "Allocated" && a.status.prefix === block).map((a) => a.metadata.name);
    expect(holders).toEqual(["block-y"]);
  });
});
