import { parsePrefix } from "../parse.js";
import type { Prefix } from "../prefix.js";
import { describeReference } from "../records.js";
import type { NetworkRegistry, Owner } from "../registry.js";
import { CLUSTER_LABEL, type AddressRecord, type OverlapRelation, type ResourceReference } from "../types.js";
import type { ObservedRange, ObservedSpace, ObservedUse } from "./importers/index.js";

/**
 * Drift: where the address space a cluster uses (what the importers observed) and what its
 * components claimed (the registry) disagree.
 *
 * - `Unclaimed`: a range in use that no claim of its use covers.
 * - `OutsidePodRange`: a node's pod CIDR outside every claimed pod range (the node IPAM controller
 *   was configured with another `--cluster-cidr` than the one claimed, or the range moved).
 * - `Overlap`: a range in use overlaps a record claimed by another owner: another use (a service
 *   range inside a CNI's claim), or another node's block. A claim's carve-outs are respected, so
 *   the service range inside kube-controller-manager's pod range is no drift when carved out.
 * - `Unused`: a claimed record that nothing observed uses (judged only for the uses observed).
 */
export type DriftType = "Unclaimed" | "OutsidePodRange" | "Overlap" | "Unused";

export interface DriftFinding {
  type: DriftType;
  message: string;
  /** The range in use (every type but `Unused`). */
  observed?: ObservedRange;
  /** The claim and record involved: the other owner of an `Overlap`, the unused record, the claims covering part of an `Unclaimed` range. */
  claim?: string;
  record?: AddressRecord;
  /** For `Overlap`: how the observed range relates to the claimed record. */
  relation?: OverlapRelation;
  /** For `Unclaimed`: claimed records of the same use inside the range. For `OutsidePodRange`: the claimed pod ranges. */
  related?: { claim: string; prefix: string }[];
}

export interface DriftReport {
  drift: boolean;
  /** The uses judged for `Unused` (a use is judged once a range of it was observed or its flag given). */
  observedUses: ObservedUse[];
  observed: ObservedRange[];
  findings: DriftFinding[];
  /** Sources not read, values that are not CIDRs, legacy spellings read with a fix. */
  notes: string[];
  summary: { observed: number; claimedRecords: number } & Record<DriftType, number>;
}

/** What a claimed record is used for, from its reference; `undefined` for anything the importers cannot observe. */
export function useOfReference(reference: ResourceReference): ObservedUse | undefined {
  if (reference.group === "" && reference.resource === "services") return "services";
  if (reference.group === "networking.k8s.io" && reference.resource === "servicecidrs") return "services";
  if (reference.group === "" && (reference.resource === "pods" || reference.resource === "nodes")) return "pods";
  return undefined;
}

const isCarveOut = (record: AddressRecord): boolean => record.status === "unavailable" && record.conflict === undefined;
const isGranted = (record: AddressRecord): boolean => record.status === "allocated";

/** A node's block names its node; it belongs to no other node. */
function belongsTo(record: AddressRecord, observed: ObservedRange): boolean {
  if (useOfReference(record.reference) !== observed.use) return false;
  const ref = record.reference;
  if (observed.source.kind === "Node" && ref.resource === "nodes" && ref.name !== undefined && ref.name !== observed.source.name)
    return false;
  return true;
}

/** A record is in use when a range of its use overlaps it; a node's block only while that node has it. */
function usedBy(record: AddressRecord, observed: ObservedRange): boolean {
  if (!belongsTo(record, observed)) return false;
  const ref = record.reference;
  return ref.resource !== "nodes" || ref.name === undefined || (observed.source.kind === "Node" && observed.source.name === ref.name);
}

function relationOf(observed: Prefix, claimed: Prefix): OverlapRelation {
  if (observed.equals(claimed)) return "equal";
  return claimed.contains(observed) ? "inside" : "contains";
}

function describeObserved(o: ObservedRange): string {
  return `${o.prefix} (${o.description})`;
}

function describeOwner(claim: string, record: AddressRecord): string {
  return `${record.prefix} claimed by ${claim} for ${describeReference(record.reference)}`;
}

/** Whether `claim` carved a range containing `prefix` out of its own space. */
function carvedOutBy(registry: NetworkRegistry, claim: string, prefix: Prefix): boolean {
  const { exact, covering } = registry.whois(prefix);
  return [...exact, ...covering].some((o) => o.claim === claim && isCarveOut(o.record));
}

/** Compares what the cluster uses with what is claimed; see {@link DriftType}. */
export interface DriftOptions {
  /**
   * The cluster observed, as claims name it in their `kana.kubekit.io/cluster` label. Claims
   * labelled for a cluster are judged `Unused` only when it is this one (a registry shared by
   * connected clusters holds the others' claims too); unlabelled claims always are.
   */
  cluster?: string;
}

export function detectDrift(space: ObservedSpace, registry: NetworkRegistry, options: DriftOptions = {}): DriftReport {
  const findings: DriftFinding[] = [];
  const used = new Set<string>();
  const key = (claim: string, record: AddressRecord) => `${claim}\u0000${record.prefix}`;
  const podRanges = registry
    .records()
    .filter((r) => isGranted(r.record) && r.record.reference.group === "" && r.record.reference.resource === "pods");

  for (const observed of space.ranges) {
    const prefix = parsePrefix(observed.prefix);
    const whois = registry.whois(prefix);
    const containing = [...whois.exact, ...whois.covering];
    const carving = new Set(containing.filter((o) => isCarveOut(o.record)).map((o) => o.claim));
    // Owners that use the observed range: granted, containing it, and not carved out around it.
    const candidates = containing.filter((o) => isGranted(o.record) && !carving.has(o.claim));
    const owner = candidates.find((o) => belongsTo(o.record, observed));
    const overlapping: Owner[] = [...candidates, ...whois.covered.filter((o) => isGranted(o.record))];
    for (const o of overlapping) if (usedBy(o.record, observed)) used.add(key(o.claim, o.record));

    if (owner === undefined) {
      if (observed.source.kind === "Node") {
        const carvedBy = containing.filter((o) => isCarveOut(o.record));
        const claimed = podRanges.map((r) => `${r.record.prefix} (${r.claim})`);
        findings.push({
          type: "OutsidePodRange",
          observed,
          related: podRanges.map((r) => ({ claim: r.claim, prefix: r.record.prefix })),
          message:
            `${describeObserved(observed)} is outside the claimed pod ranges${claimed.length > 0 ? ` ${claimed.join(", ")}` : " (no pod range is claimed)"}` +
            (carvedBy.length > 0 ? `; it is inside ${carvedBy.map((o) => `${o.record.prefix} carved out by ${o.claim}`).join(", ")}` : ""),
        });
      } else {
        const parts = whois.covered.filter((o) => isGranted(o.record) && belongsTo(o.record, observed));
        findings.push({
          type: "Unclaimed",
          observed,
          related: parts.map((o) => ({ claim: o.claim, prefix: o.record.prefix })),
          message:
            `${describeObserved(observed)} is in use but not claimed for ${observed.use}` +
            (parts.length > 0 ? `; only part of it is: ${parts.map((o) => `${o.record.prefix} (${o.claim})`).join(", ")}` : ""),
        });
      }
    }

    for (const other of overlapping) {
      if (belongsTo(other.record, observed)) continue;
      const otherPrefix = parsePrefix(other.record.prefix);
      if (owner !== undefined) {
        // Nesting the registry granted around the owner's record was declared (a delegation).
        if (otherPrefix.contains(parsePrefix(owner.record.prefix))) continue;
        // The owner carved it out: kube-controller-manager's pod range around the service range.
        if (carvedOutBy(registry, owner.claim, otherPrefix)) continue;
      }
      const relation = relationOf(prefix, otherPrefix);
      findings.push({
        type: "Overlap",
        observed,
        claim: other.claim,
        record: other.record,
        relation,
        message: `${describeObserved(observed)} ${relation === "equal" ? "is" : relation === "inside" ? "is inside" : "contains"} ${describeOwner(other.claim, other.record)}`,
      });
    }
  }

  const ofThisCluster = (claim: string) => {
    const labels = registry.get(claim)?.metadata.labels;
    const cluster = labels !== undefined && Object.hasOwn(labels, CLUSTER_LABEL) ? labels[CLUSTER_LABEL] : undefined;
    return cluster === undefined || cluster === options.cluster;
  };
  for (const { claim, record } of registry.records()) {
    const use = useOfReference(record.reference);
    if (
      !isGranted(record) ||
      use === undefined ||
      !space.observedUses.includes(use) ||
      used.has(key(claim, record)) ||
      !ofThisCluster(claim)
    )
      continue;
    findings.push({ type: "Unused", claim, record, message: `nothing observed uses ${describeOwner(claim, record)}` });
  }

  const notes = [...space.skipped, ...space.problems, ...space.ranges.flatMap((r) => r.warnings)];
  const count = (type: DriftType) => findings.filter((f) => f.type === type).length;
  return {
    drift: findings.length > 0,
    observedUses: space.observedUses,
    observed: space.ranges,
    findings,
    notes,
    summary: {
      observed: space.ranges.length,
      claimedRecords: registry.records().filter((r) => isGranted(r.record)).length,
      Unclaimed: count("Unclaimed"),
      OutsidePodRange: count("OutsidePodRange"),
      Overlap: count("Overlap"),
      Unused: count("Unused"),
    },
  };
}

/** The report for a terminal: one line per finding, then notes and a verdict. */
export function renderDrift(report: DriftReport): string {
  const lines: string[] = [];
  const width = Math.max(...report.findings.map((f) => f.type.length), 4);
  for (const finding of report.findings) lines.push(`${finding.type.padEnd(width)}  ${finding.message}`);
  for (const note of report.notes) lines.push(`${"note".padEnd(width)}  ${note}`);
  if (lines.length > 0) lines.push("");
  const s = report.summary;
  lines.push(
    `${s.observed} observed ranges, ${s.claimedRecords} claimed records: ${s.Unclaimed} unclaimed, ${s.OutsidePodRange} outside the pod range, ${s.Overlap} overlaps, ${s.Unused} unused`,
  );
  lines.push(report.drift ? "DRIFT: the cluster's address space differs from its claims" : "OK: the cluster uses what it claims");
  return `${lines.join("\n")}\n`;
}
