import { NetworkRegistryError } from "./errors.js";
import { parsePrefix } from "./parse.js";
import { isAncestor, type ClaimState, type Grant, type RecordState } from "./registry-state.js";
import type { PrefixTrie } from "./trie.js";
import type { AddressRecord } from "./types.js";

/*
 * What hangs on a record: the records delegated from it and the records that sit inside
 * another only because it carves them out. A release or an update that would leave them
 * without what they rely on is refused here, naming them, before anything changes.
 */

/** Granted records delegated from `grants` that are not among them, grouped by the grant they hang on. */
export function dependantsOutside(grants: readonly Grant[]): [Grant, Grant[]][] {
  const set = new Set(grants);
  const result: [Grant, Grant[]][] = [];
  for (const grant of grants) {
    const outside = [...grant.children].filter((c) => !set.has(c));
    if (outside.length > 0) result.push([grant, outside.sort(compareGrants)]);
  }
  return result;
}

function compareGrants(a: Grant, b: Grant): number {
  const byClaim = a.record.claim.order - b.record.claim.order;
  return byClaim !== 0 ? byClaim : a.prefix.compare(b.prefix);
}

export function describeDependants(groups: readonly [Grant, Grant[]][]): string {
  return groups
    .map(([grant, children]) => `${grant.key} has delegations (${children.map((c) => `${c.claim} ${c.key}`).join(", ")})`)
    .join("; ");
}

/**
 * Refuse an update that would orphan delegations, take a delegate's permission away, or
 * drop a carve-out another claim's record relies on.
 */
export function assertUpdateKeepsDependants(
  trie: PrefixTrie<Grant[]>,
  state: ClaimState,
  dropped: readonly RecordState[],
  kept: ReadonlyMap<string, { record: RecordState; spec: AddressRecord }>,
  specs: readonly AddressRecord[],
): void {
  const droppedGrants = dropped.flatMap((r) => (r.grant === undefined ? [] : [r.grant]));
  const problems: string[] = [];
  const orphans = dependantsOutside(droppedGrants);
  if (orphans.length > 0) problems.push(describeDependants(orphans));
  for (const { record, spec } of kept.values()) {
    const grant = record.grant;
    if (grant === undefined) continue;
    const allowed = (claim: string) => claim === state.name || (spec.delegateTo ?? []).some((d) => d === claim || d === "*");
    const lost = [...grant.children].filter((c) => !allowed(c.claim));
    if (lost.length > 0) problems.push(`${grant.key} would no longer delegate to ${lost.map((c) => `${c.claim} ${c.key}`).join(", ")}`);
  }
  const remainingCarveOuts = specs.filter((s) => s.status === "unavailable").map((s) => parsePrefix(s.prefix));
  const remainingOuter = [...kept.values()].flatMap(({ record }) => (record.grant?.kind === "allocated" ? [record.grant] : []));
  for (const carve of droppedGrants.filter((g) => g.kind === "carve-out")) {
    for (const entry of trie.coveredBy(carve.prefix)) {
      for (const inner of entry.value) {
        if (inner.kind !== "allocated" || inner.claim === state.name || remainingCarveOuts.some((c) => c.contains(inner.prefix))) continue;
        const outer = remainingOuter.find((o) => o.prefix.contains(inner.prefix) && !isAncestor(o, inner.parent));
        if (outer !== undefined)
          problems.push(`${inner.claim} ${inner.key} sits inside ${outer.key} only because ${carve.key} is carved out`);
      }
    }
  }
  if (problems.length > 0) {
    throw new NetworkRegistryError(
      "has-dependants",
      `NetworkClaim ${state.name} cannot be updated: ${problems.join("; ")}; release them first`,
    );
  }
}
