import type { GrantIndex } from "./grant-index.js";
import type { Evaluation, OverlapRules } from "./overlap-rules.js";
import { parsePrefix } from "./parse.js";
import type { RecordStamps } from "./record-stamps.js";
import { normalizeRecord } from "./records.js";
import { hull, rangeOf, type RefusalWatch } from "./refusal-watch.js";
import type { RefusedRecords } from "./refused-records.js";
import { newGrant, setStatus, type Grant, type RecordState } from "./registry-state.js";
import { stableStringify } from "@kubekit/apimachinery";

/*
 * Deciding refused records again after the granted records change: which of them are granted
 * now, in claim order, and what the others' conflicts say now. Its own module because it is the
 * registry's one fixed-point loop, with its own ordering and incremental-cost rules.
 */

/** What a decision reads and changes. */
export interface DecisionContext {
  readonly refused: RefusedRecords<RecordState>;
  readonly rules: OverlapRules;
  readonly grants: GrantIndex;
  readonly stamps: RecordStamps;
}

/**
 * Decide records without a grant again, in claim order, until nothing more is granted: after
 * each grant the scan restarts, so an earlier claim always goes first. Records that stay
 * refused get a conflict that names the current blocker and a current suggestion. Only records
 * a change since the last decision can affect are decided (see {@link RefusalWatch}), so the
 * cost of a change grows with the refusals around it, not with all refusals.
 */
export function decideRefused(ctx: DecisionContext): void {
  const { refused, rules, stamps } = ctx;
  if (refused.size === 0) {
    refused.forgetChanges();
    return;
  }
  const date = stamps.now();
  const candidates = new Set<RecordState>();
  refused.collect(candidates);
  let pending = [...candidates].sort(compareRecords);
  for (let i = 0; i < pending.length;) {
    const record = pending[i]!;
    const outcome = rules.evaluate(record.claim.name, record.validated, false);
    if (outcome.conflict === undefined) {
      grantRecord(ctx, record, outcome, date);
      pending.splice(i, 1);
      if (refused.collect(candidates)) pending = [...candidates].filter((r) => refused.has(r)).sort(compareRecords);
      i = 0;
    } else {
      i++;
    }
  }
  for (const record of pending) {
    const outcome = rules.evaluate(record.claim.name, record.validated, true);
    const status = normalizeRecord({
      ...record.spec,
      date: record.status.date,
      status: "unavailable",
      conflict: outcome.conflict,
      warnings: outcome.warnings,
    });
    const { date: _old, ...before } = record.status;
    const { date: _new, ...after } = status;
    if (record.status.date === undefined || stableStringify(before) !== stableStringify(after)) setStatus(record, { ...status, date });
    if (outcome.conflict?.reason === "SpecialPurpose") refused.delete(record);
    else record.watch = watchOf(rules, record, outcome.parent, outcome.conflict?.nearestFree);
  }
}

/** The ranges a refused record's outcome depends on (see {@link RefusalWatch}). */
function watchOf(rules: OverlapRules, record: RecordState, parent: Grant | undefined, nearest: string | undefined): RefusalWatch {
  const { prefix, parentPrefix } = record.validated;
  const own = [rangeOf(prefix), ...(parentPrefix === undefined ? [] : [rangeOf(parentPrefix)])];
  const searched = rangeOf(parent?.prefix ?? parentPrefix ?? rules.searchBound(prefix));
  const visited = nearest === undefined ? searched : hull(own[0]!, rangeOf(parsePrefix(nearest)));
  return { added: [...own, visited], freed: [...own, searched] };
}

function grantRecord(ctx: DecisionContext, record: RecordState, outcome: Evaluation, date: string): void {
  ctx.refused.delete(record);
  record.status = normalizeRecord({ ...record.spec, date, status: "allocated", warnings: outcome.warnings });
  record.grant = newGrant(record, "allocated");
  record.grant.parent = outcome.parent;
  outcome.parent?.children.add(record.grant);
  ctx.grants.insert(record.grant);
}

/** Claim order, then spec order. */
function compareRecords(a: RecordState, b: RecordState): number {
  if (a.claim !== b.claim) return a.claim.order - b.claim.order;
  return a.claim.declared.indexOf(a) - b.claim.declared.indexOf(b);
}
