import { describe, expect, it } from "vitest";
import { isNetworkRegistryError } from "./errors.js";
import { NetworkRegistry, type RegistrySnapshot } from "./registry.js";
import { SpecialPurposePolicy } from "./special-purpose.js";
import type { AddressRecord, NetworkClaim } from "./types.js";

const clock = () => new Date("2026-01-01T00:00:00.000Z");
const DATE = "2026-01-01T00:00:00.000Z";
const pods = { group: "", resource: "pods" };
const nodes = { group: "", resource: "nodes" };

function claim(name: string, ...records: AddressRecord[]): NetworkClaim {
  return { metadata: { name }, spec: { addressSpace: records } };
}

function snapshotOf(build: (registry: NetworkRegistry) => void): RegistrySnapshot {
  const registry = new NetworkRegistry({ clock });
  build(registry);
  return JSON.parse(JSON.stringify(registry.snapshot())) as RegistrySnapshot;
}

function restoreError(snapshot: unknown, options = {}): string {
  try {
    NetworkRegistry.restore(snapshot as RegistrySnapshot, { clock, ...options });
  } catch (error) {
    if (isNetworkRegistryError(error) && error.code === "invalid-snapshot") return error.message;
    throw error;
  }
  throw new Error("expected restore to fail");
}

/** A granted record written into a snapshot by hand (what a corrupted store could hold). */
function granted(record: AddressRecord): AddressRecord {
  return { ...record, date: DATE, status: "allocated" };
}

describe("restore re-validates everything", () => {
  const base = () =>
    snapshotOf((r) => {
      r.claim(claim("platform", { reference: pods, prefix: "10.0.0.0/8", delegateTo: ["cluster-1"] }));
      r.claim(claim("cluster-1", { reference: pods, prefix: "10.1.0.0/16", parent: { claim: "platform", prefix: "10.0.0.0/8" } }));
    });

  it("accepts its own snapshots", () => {
    const snapshot = base();
    expect(NetworkRegistry.restore(snapshot, { clock }).snapshot()).toEqual(snapshot);
  });

  it("rejects a wrong apiVersion, kind or generation", () => {
    expect(restoreError({ ...base(), apiVersion: "v1" })).toMatch(/apiVersion must be kana.kubekit.io\/v1alpha1/);
    expect(restoreError({ ...base(), kind: "List" })).toMatch(/kind must be NetworkRegistrySnapshot/);
    expect(restoreError({ ...base(), generation: -1 })).toMatch(/generation must be a non-negative integer/);
    expect(restoreError({ ...base(), generation: 1.5 })).toMatch(/generation/);
    expect(restoreError(null)).toMatch(/kind/);
  });

  it("rejects duplicate claim names", () => {
    const snapshot = base();
    snapshot.claims.push(snapshot.claims[0]!);
    expect(restoreError(snapshot)).toMatch(/claim platform appears twice/);
  });

  it("rejects overlapping grants of different claims", () => {
    const snapshot = base();
    snapshot.claims.push({
      ...claim("intruder", { reference: pods, prefix: "10.1.2.0/24" }),
      status: { addressSpace: [granted({ reference: pods, prefix: "10.1.2.0/24" })] },
    });
    expect(restoreError(snapshot)).toMatch(
      /intruder 10.1.2.0\/24 and cluster-1 10.1.0.0\/16 overlap without a delegation or carve-out|overlap without a delegation/,
    );
  });

  it("rejects ranges the policy rejects", () => {
    const lenient = new NetworkRegistry({ clock, policy: new SpecialPurposePolicy([{ prefix: "127.0.0.0/8", action: "allow" }]) });
    lenient.claim(claim("lo", { reference: pods, prefix: "127.0.0.0/16" }));
    const snapshot = JSON.parse(JSON.stringify(lenient.snapshot())) as RegistrySnapshot;
    expect(restoreError(snapshot)).toMatch(/lo 127.0.0.0\/16 is granted, but the policy rejects it/);
  });

  it("rejects delegations outside their parent or without permission", () => {
    const outside = base();
    outside.claims[1] = {
      ...claim("cluster-1", { reference: pods, prefix: "11.1.0.0/16", parent: { claim: "platform", prefix: "10.0.0.0/8" } }),
      status: { addressSpace: [granted({ reference: pods, prefix: "11.1.0.0/16", parent: { claim: "platform", prefix: "10.0.0.0/8" } })] },
    };
    expect(restoreError(outside)).toMatch(/cluster-1 11.1.0.0\/16 is not inside its parent platform 10.0.0.0\/8/);
    const unpermitted = base();
    const platform = { reference: pods, prefix: "10.0.0.0/8" };
    unpermitted.claims[0] = { ...claim("platform", platform), status: { addressSpace: [granted(platform)] } };
    expect(restoreError(unpermitted)).toMatch(/platform 10.0.0.0\/8 does not delegate to cluster-1/);
  });

  it("rejects parent cycles instead of hanging", () => {
    const a = { reference: pods, prefix: "10.0.0.0/16", parent: { claim: "b", prefix: "10.0.0.0/16" }, delegateTo: ["*"] };
    const b = { reference: pods, prefix: "10.0.0.0/16", parent: { claim: "a", prefix: "10.0.0.0/16" }, delegateTo: ["*"] };
    const snapshot: RegistrySnapshot = {
      apiVersion: "kana.kubekit.io/v1alpha1",
      kind: "NetworkRegistrySnapshot",
      generation: 2,
      allocations: [],
      claims: [
        { ...claim("a", a), status: { addressSpace: [granted(a)] } },
        { ...claim("b", b), status: { addressSpace: [granted(b)] } },
      ],
    };
    expect(restoreError(snapshot)).toMatch(/parents form a cycle/);
  });

  it("rejects a status that disagrees with its spec or is stale", () => {
    const changed = base();
    changed.claims[1]!.status!.addressSpace[0]!.description = "not in spec";
    expect(restoreError(changed)).toMatch(/status disagrees with spec/);
    const missing = base();
    missing.claims[1]!.status!.addressSpace = [];
    expect(restoreError(missing)).toMatch(/one entry per spec record/);
    const refusedButFree = snapshotOf((r) => {
      r.claim(claim("a", { reference: pods, prefix: "10.0.0.0/16" }));
      r.claim(claim("b", { reference: pods, prefix: "10.0.0.0/17" }));
    });
    refusedButFree.claims.shift();
    expect(restoreError(refusedButFree)).toMatch(/b 10.0.0.0\/17 is recorded as refused, but nothing blocks it/);
  });

  it("rejects allocations of unknown claims or without a pool", () => {
    const snapshot = snapshotOf((r) => {
      r.claim(claim("kcm", { reference: pods, prefix: "10.244.0.0/16" }));
      r.allocate({ claim: "kcm", reference: nodes, from: "10.244.0.0/16", prefixLength: 24 });
    });
    expect(restoreError({ ...snapshot, allocations: [{ ...snapshot.allocations[0]!, claim: "ghost" }] })).toMatch(
      /claim "ghost" is not in the snapshot/,
    );
    const { parent: _parent, ...orphan } = snapshot.allocations[0]!.record;
    expect(restoreError({ ...snapshot, allocations: [{ claim: "kcm", record: orphan }] })).toMatch(/must name its pool as parent/);
  });

  it("answers exactly as the live registry after a whole-pool delegation", () => {
    const live = new NetworkRegistry({ clock });
    live.claim(claim("platform", { reference: pods, prefix: "10.8.0.0/16", delegateTo: ["cluster-a"] }));
    live.allocate({ claim: "cluster-a", reference: pods, from: "10.8.0.0/16", prefixLength: 16 });
    live.allocate({ claim: "cluster-a", reference: nodes, from: "10.8.0.0/16", prefixLength: 24 });
    const restored = NetworkRegistry.restore(JSON.parse(JSON.stringify(live.snapshot())) as RegistrySnapshot, { clock });
    expect(restored.whois("10.8.0.0/16")).toEqual(live.whois("10.8.0.0/16"));
    expect(restored.utilization("10.8.0.0/16")).toEqual(live.utilization("10.8.0.0/16"));
    const next = { claim: "cluster-a", reference: nodes, from: "10.8.0.0/16", prefixLength: 24 };
    expect(restored.allocate(next)).toEqual(live.allocate(next));
    expect(restored.snapshot()).toEqual(live.snapshot());
  });
});
