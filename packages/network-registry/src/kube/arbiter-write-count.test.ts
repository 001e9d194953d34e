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

/** A client counting the writes made through it to claims and allocations, by object. */
class CountingClient extends KubeClient {
  readonly statusWrites = new Map<string, number>();
  readonly metadataWrites = new Map<string, number>();
  lastWriteAt = Date.now();

  #count(counts: Map<string, number>, ref: ResourceRef, name: string | undefined): void {
    if (ref.resource !== NETWORK_CLAIMS.resource && ref.resource !== NETWORK_ALLOCATIONS.resource) return;
    const key = `${ref.resource}/${name ?? ""}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    this.lastWriteAt = Date.now();
  }

  override async update<T extends KubeObject = KubeObject>(
    ref: ResourceRef,
    namespace: string | undefined,
    object: KubeObject,
    subresource?: string,
    signal?: AbortSignal,
  ): Promise<T> {
    this.#count(subresource === "status" ? this.statusWrites : this.metadataWrites, ref, object.metadata?.name);
    return super.update<T>(ref, namespace, object, subresource, signal);
  }

  override async patch<T extends KubeObject = KubeObject>(
    ref: ResourceRef,
    namespace: string | undefined,
    name: string,
    patch: unknown,
    contentType?: string,
    subresource?: string,
  ): Promise<T> {
    this.#count(subresource === "status" ? this.statusWrites : this.metadataWrites, ref, name);
    return super.patch<T>(ref, namespace, name, patch, contentType, subresource);
  }
}

const CLAIMS = 12;
const ALLOCATIONS = 30;

describe("arbiter write volume", () => {
  let plane: KanaPlane;
  let client: CountingClient;
  let arbiter: Arbiter | undefined;
  beforeAll(async () => {
    plane = await startKanaPlane();
    client = new CountingClient(plane.url);
  });
  afterAll(async () => {
    await arbiter?.stop();
    client?.close();
    await plane?.close();
  });

  it("writes each status once, and a finalizer only on a claim something is allocated from", { timeout: 60_000 }, async () => {
    const create = (object: object) =>
      plane.client.create(NETWORK_CLAIMS, undefined, { apiVersion: NETWORK_CLAIM_API_VERSION, kind: NETWORK_CLAIM_KIND, ...object });
    await create({ metadata: { name: "pool" }, spec: { addressSpace: [{ reference: pods, prefix: "10.0.0.0/16", delegateTo: ["*"] }] } });
    // Every third claim overlaps the one before it and is refused.
    for (let i = 0; i < CLAIMS; i++) await create(claimOf(`component-${i}`, `10.1.${i % 3 === 2 ? i - 1 : i}.0/24`));
    for (let i = 0; i < ALLOCATIONS; i++) {
      await plane.client.create(NETWORK_ALLOCATIONS, undefined, {
        apiVersion: NETWORK_CLAIM_API_VERSION,
        kind: NETWORK_ALLOCATION_KIND,
        metadata: { name: `block-${i}` },
        spec: { claim: "kubelet", pool: "10.0.0.0/16", prefixLength: 24, reference: { ...pods, name: `node-${i}` } },
      });
    }
    arbiter = await runArbiter({ config: client, leaderElection: false });
    await eventually(
      "every object to be decided",
      async () => {
        const claims = (await plane.client.list<NetworkClaimObject>(NETWORK_CLAIMS)).items;
        const allocations = (await plane.client.list<NetworkAllocationObject>(NETWORK_ALLOCATIONS)).items;
        return [...claims, ...allocations].every((o) => o.status?.phase !== undefined) ? true : undefined;
      },
      30_000,
    );
    // Later passes (each write brings a watch event) find nothing more to write.
    await eventually("the writes to settle", () => (Date.now() - client.lastWriteAt > 1_500 ? true : undefined), 30_000);

    const claims = (await plane.client.list<NetworkClaimObject>(NETWORK_CLAIMS)).items;
    expect(
      claims
        .filter((c) => c.status?.phase === "Conflict")
        .map((c) => c.metadata.name)
        .sort(),
    ).toEqual(["component-11", "component-2", "component-5", "component-8"]);
    const expected = new Map([
      ...claims.map((c) => [`networkclaims/${c.metadata.name}`, 1] as const),
      ...Array.from({ length: ALLOCATIONS }, (_, i) => [`networkallocations/block-${i}`, 1] as const),
    ]);
    expect(Object.fromEntries(client.statusWrites)).toEqual(Object.fromEntries(expected));
    expect(Object.fromEntries(client.metadataWrites)).toEqual({ "networkclaims/pool": 1 });
    expect(claims.filter((c) => (c.metadata.finalizers ?? []).length > 0).map((c) => c.metadata.name)).toEqual(["pool"]);

    // A new allocation is one status write; no claim's status is written again.
    client.statusWrites.clear();
    await plane.client.create(NETWORK_ALLOCATIONS, undefined, {
      apiVersion: NETWORK_CLAIM_API_VERSION,
      kind: NETWORK_ALLOCATION_KIND,
      metadata: { name: "block-late" },
      spec: { claim: "kubelet", pool: "10.0.0.0/16", prefixLength: 24, reference: { ...pods, name: "node-late" } },
    });
    await eventually("the late allocation to be decided", async () =>
      (await plane.client.get<NetworkAllocationObject>(NETWORK_ALLOCATIONS, undefined, "block-late")).status?.phase === "Allocated"
        ? true
        : undefined,
    );
    await eventually("the writes to settle", () => (Date.now() - client.lastWriteAt > 1_000 ? true : undefined), 30_000);
    expect(Object.fromEntries(client.statusWrites)).toEqual({ "networkallocations/block-late": 1 });
  });
});
