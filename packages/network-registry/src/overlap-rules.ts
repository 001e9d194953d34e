import type { ValidatedRecord } from "./claim-validation.js";
import type { GrantIndex } from "./grant-index.js";
import { nearestFree } from "./nearest-free.js";
import { parsePrefix } from "./parse.js";
import { Prefix } from "./prefix.js";
import { describeReference } from "./records.js";
import { isAncestor, type ClaimState, type Grant } from "./registry-state.js";
import type { SpecialPurposePolicy } from "./special-purpose.js";
import type { Conflict, OverlapRelation } from "./types.js";

/*
 * The overlap policy, read-only over the registry's state: whether a record may be granted
 * now, and if not, which rule it breaks, the record behind it (the explanation), and the
 * nearest block it could have instead. Deciding is the registry's job; this only answers.
 */

/** The outcome of evaluating one record: a conflict, or the grant it would be delegated from. */
export interface Evaluation {
  conflict?: Conflict;
  parent?: Grant;
  warnings: string[];
}

/** What placed a candidate prefix: a conflict and the grant behind it, or nothing (free). */
interface Placement {
  conflict?: Conflict;
  blocker?: Grant;
}

const RELATION_TEXT: Record<OverlapRelation, string> = { equal: "is the same range as", inside: "is inside", contains: "contains" };

export function canDelegate(grant: Grant, claim: string): boolean {
  return grant.claim === claim || (grant.delegateTo !== undefined && (grant.delegateTo.includes(claim) || grant.delegateTo.includes("*")));
}

export class OverlapRules {
  private readonly tablePrefixes = new Map<string, Prefix>();

  constructor(
    readonly policy: SpecialPurposePolicy,
    private readonly grants: GrantIndex,
    private readonly claims: ReadonlyMap<string, ClaimState>,
    /** Claims with carve-outs (most claims have none, so most carve-out searches are skipped). */
    private readonly carving: ReadonlySet<ClaimState>,
  ) {}

  /** The overlap policy for one allocated record. */
  evaluate(claim: string, validated: ValidatedRecord, withNearest: boolean): Evaluation {
    const prefix = validated.prefix;
    const action = this.policy.actionOf(prefix);
    const warnings = action === "allow" ? [] : [this.policy.check(prefix).message];
    if (action === "reject") {
      return { warnings: [], conflict: { reason: "SpecialPurpose", message: `${warnings[0]}; such ranges cannot be claimed` } };
    }
    // The common case: nothing overlaps and nothing is delegated; one search of the flat index.
    if (validated.parentPrefix === undefined && !this.grants.trie.overlapsAny(prefix)) return { warnings };
    let parent: Grant | undefined;
    if (validated.parentPrefix !== undefined) {
      const parentRef = validated.record.parent!;
      parent = this.findGrant(parentRef.claim, validated.parentPrefix);
      if (parent === undefined) {
        return {
          warnings,
          conflict: {
            reason: "ParentNotFound",
            message: `${prefix.toString()} names parent ${parentRef.claim} ${validated.parentPrefix.toString()}, which is not an allocated record`,
            claim: parentRef.claim,
            prefix: validated.parentPrefix.toString(),
          },
        };
      }
    }
    const placed = this.place(claim, prefix, parent);
    if (placed.conflict === undefined) return parent === undefined ? { warnings } : { warnings, parent };
    const conflict = placed.conflict;
    if (withNearest && conflict.reason !== "NotDelegable") {
      const nearest = nearestFree(this, claim, prefix, parent)?.toString();
      if (nearest !== undefined) {
        conflict.nearestFree = nearest;
        if (conflict.reason === "Overlap") conflict.message += `; nearest free /${prefix.length}: ${nearest}`;
      }
    }
    return { warnings, conflict };
  }

  /** Where a prefix stands with its parent already resolved: free, or the first rule it breaks and the record behind it. */
  place(claim: string, prefix: Prefix, parent: Grant | undefined): Placement {
    const text = prefix.toString();
    if (parent !== undefined) {
      const parentText = `${parent.claim} ${parent.key}`;
      if (!parent.prefix.contains(prefix)) {
        return {
          conflict: {
            reason: "OutsideParent",
            message: `${text} is not inside its parent ${parentText}`,
            claim: parent.claim,
            prefix: parent.key,
          },
        };
      }
      if (!canDelegate(parent, claim)) {
        return {
          conflict: {
            reason: "NotDelegable",
            message: `${parentText} does not delegate to ${claim} (add it to the parent's delegateTo)`,
            claim: parent.claim,
            prefix: parent.key,
          },
        };
      }
      const exclusion = this.carveOut(parent.claim, prefix);
      if (exclusion !== undefined) {
        return {
          blocker: exclusion,
          conflict: {
            reason: "InsideExclusion",
            message: `${text} is inside ${exclusion.key}, which ${parent.claim} carved out of ${parent.key}`,
            claim: parent.claim,
            prefix: exclusion.key,
          },
        };
      }
    }
    if (!this.grants.trie.overlapsAny(prefix)) return {};
    for (const entry of this.grants.trie.overlapping(prefix)) {
      for (const grant of entry.value) {
        if (grant.kind === "carve-out" || isAncestor(grant, parent)) continue;
        const relation: OverlapRelation =
          grant.prefix.length === prefix.length ? "equal" : grant.prefix.length < prefix.length ? "inside" : "contains";
        if (grant.claim !== claim) {
          // The outer record's owner has carved the inner range out: nesting is declared.
          if (relation !== "contains" && this.carveOut(grant.claim, prefix) !== undefined) continue;
          if (relation !== "inside" && this.carveOut(claim, grant.prefix) !== undefined) continue;
        }
        const owner = grant.claim === claim ? `${claim}'s own record` : grant.claim;
        return {
          blocker: grant,
          conflict: {
            reason: "Overlap",
            message: `${text} ${RELATION_TEXT[relation]} ${grant.key} allocated to ${owner} (${describeReference(grant.status.reference)})`,
            relation,
            claim: grant.claim,
            prefix: grant.key,
            reference: grant.status.reference,
          },
        };
      }
    }
    return {};
  }

  /** The carve-out of `owner` around `target`, if any. */
  carveOut(owner: string, target: Prefix): Grant | undefined {
    const state = this.claims.get(owner);
    if (state === undefined || !this.carving.has(state)) return undefined; // most claims carve nothing out
    for (const entry of this.grants.trie.covering(target)) {
      for (const grant of entry.value) if (grant.kind === "carve-out" && grant.claim === owner) return grant;
    }
    return undefined;
  }

  /** A pool inside its owner's own carve-out has no space to give (as for a declared delegation: InsideExclusion). */
  insideOwnCarveOut(pool: Grant): boolean {
    if (!this.carving.has(pool.record.claim)) return false;
    return this.grants.trie.covering(pool.prefix).some((e) => e.value.some((g) => g.kind === "carve-out" && g.claim === pool.claim));
  }

  /** Whether `inner` may overlap `outer`: delegated from it, or carved out of it by its owner. */
  nestingDeclared(outer: Grant, inner: Grant): boolean {
    return isAncestor(outer, inner.parent) || (outer.claim !== inner.claim && this.carveOut(outer.claim, inner.prefix) !== undefined);
  }

  /** The allocated record of `claim` at exactly `prefix`. */
  findGrant(claim: string, prefix: Prefix): Grant | undefined {
    return this.grants.trie.get(prefix)?.find((g) => g.claim === claim && g.kind === "allocated");
  }

  /** The granted carve-outs a claim has declared, in spec order (holes the nearest-free search may step into). */
  carveOutsOf(claim: string): Grant[] {
    return (this.claims.get(claim)?.declared ?? []).flatMap((record) => (record.grant?.kind === "carve-out" ? [record.grant] : []));
  }

  /** Where to look for an alternative: the innermost special-purpose range strictly around the prefix. */
  searchBound(prefix: Prefix): Prefix {
    const covering = this.policy.check(prefix).findings[0]?.range.prefix;
    if (covering !== undefined) {
      const bound = this.tablePrefix(covering);
      if (bound.length < prefix.length) return bound;
    }
    return Prefix.all(prefix.family);
  }

  /** A special-purpose table prefix, parsed once. */
  tablePrefix(text: string): Prefix {
    let prefix = this.tablePrefixes.get(text);
    if (prefix === undefined) {
      prefix = parsePrefixOrTable(text);
      this.tablePrefixes.set(text, prefix);
    }
    return prefix;
  }
}

function parsePrefixOrTable(text: string): Prefix {
  try {
    return parsePrefix(text);
  } catch {
    return Prefix.all(text.includes(":") ? 6 : 4);
  }
}
