import type { OverlapRules } from "./overlap-rules.js";
import { Prefix } from "./prefix.js";
import type { Grant } from "./registry-state.js";
import { bigIntToWords } from "./words.js";

/*
 * The suggestion in a refusal: the free block of the requested size nearest to it. Kept apart
 * from the rules it asks (a candidate is free when the rules place it without a conflict)
 * because it is a search, with its own bounds and costs.
 */

const SEVERITY = { allow: 0, warn: 1, reject: 2 } as const;

/** How many blocking records the nearest-free search steps over in each direction. */
const NEAREST_FREE_STEPS = 1024;

/**
 * The free block of the same size nearest to `prefix` (ties go to the higher one) that the
 * claim could have: inside the parent, or inside the innermost IANA range around the prefix,
 * never in a range the policy likes less. Each step jumps over the record that blocks the
 * candidate, so the cost grows with the records in the way, not with the distance.
 */
export function nearestFree(rules: OverlapRules, claim: string, prefix: Prefix, parent: Grant | undefined): Prefix | undefined {
  const policy = rules.policy;
  const bound = parent?.prefix ?? rules.searchBound(prefix);
  if (prefix.length < bound.length) return undefined;
  const family = prefix.family;
  const step = 1n << BigInt(prefix.bits - prefix.length);
  const boundFirst = bound.first().toBigInt();
  const boundLast = bound.last().toBigInt();
  const requested = prefix.first().toBigInt();
  const origin = requested < boundFirst ? boundFirst : requested > boundLast ? boundLast - step + 1n : requested;
  const ceiling = SEVERITY[policy.actionOf(prefix)];
  const at = (value: bigint): Prefix => {
    const [w0, w1, w2, w3] = bigIntToWords(family, value);
    return new Prefix(family, w0, w1, w2, w3, prefix.length);
  };
  const distance = (x: bigint) => (x > requested ? x - requested : requested - x);
  const jump = (range: Prefix, direction: 1 | -1): bigint =>
    direction === 1 ? range.last().toBigInt() + 1n : range.first().toBigInt() - step;
  /** The nearest acceptable start in one direction, no farther than `limit` from the request. */
  const search = (direction: 1 | -1, limit: bigint | undefined): bigint | undefined => {
    let start = origin;
    for (let steps = 0; steps < NEAREST_FREE_STEPS; steps++) {
      if (start < boundFirst || start + step - 1n > boundLast) return undefined;
      if (limit !== undefined && distance(start) > limit) return undefined;
      const candidate = at(start);
      const { blocker, conflict } = rules.place(claim, candidate, parent);
      // A refusal that no position fixes (the parent does not delegate to the claim): nothing to suggest.
      if (conflict !== undefined && blocker === undefined) return undefined;
      if (blocker === undefined) {
        if (SEVERITY[policy.actionOf(candidate)] <= ceiling) return start;
        // Jump over the innermost range around the candidate that the policy likes less.
        const verdict = policy.check(candidate);
        const worse = verdict.findings
          .filter((f) => SEVERITY[f.range.action] > ceiling)
          .map((f) => rules.tablePrefix(f.range.prefix))
          .filter((p) => p.contains(candidate));
        const skip = worse.sort((a, b) => a.length - b.length)[0];
        start = skip === undefined ? start + BigInt(direction) * step : jump(skip, direction);
        continue;
      }
      start = jumpOver(rules, blocker, candidate, start, step, direction);
    }
    return undefined;
  };
  const after = search(1, undefined);
  // Only a strictly nearer block below can win (ties go to the higher one).
  const before = search(-1, after === undefined ? undefined : distance(after) - 1n);
  if (before !== undefined) return at(before);
  return after === undefined ? undefined : at(after);
}

/** The next candidate start past a blocking record, in `direction`; never past a hole its owner carved out. */
function jumpOver(rules: OverlapRules, blocker: Grant, candidate: Prefix, start: bigint, step: bigint, direction: 1 | -1): bigint {
  if (blocker.prefix.length >= candidate.length) return start + BigInt(direction) * step;
  let next = direction === 1 ? blocker.prefix.last().toBigInt() + 1n : blocker.prefix.first().toBigInt() - step;
  if (blocker.kind === "allocated") {
    // Candidates inside a carve-out of the blocker's owner may be free although the blocker contains them.
    for (const hole of rules.carveOutsOf(blocker.claim)) {
      if (hole.prefix.length > candidate.length || !blocker.prefix.contains(hole.prefix)) continue;
      const first = hole.prefix.first().toBigInt();
      const last = hole.prefix.last().toBigInt();
      if (direction === 1 && first > start && first < next) next = first;
      if (direction === -1 && last < start && last - step + 1n > next) next = last - step + 1n;
    }
  }
  return next;
}
