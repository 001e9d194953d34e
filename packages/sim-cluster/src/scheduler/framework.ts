import { canonicalJson } from "../controllers/pod-template-hash.js";
import { parseMilli, quantityText } from "../quantity.js";
import type { Node } from "../resources/nodes.js";
import type { Pod } from "../resources/pods.js";
import { nodeAllocatable, podRequests, resourceFitReasons } from "./fit.js";
import { ERR_REASON_NODE_PORTS, hostPortsConflict, hostPortsOf, type HostPort } from "./node-ports.js";
import { ERR_REASON_POD_AFFINITY, nodeAffinityOf, preferredNodeAffinityScore, requiredNodeAffinityMatches } from "./node-affinity.js";
import {
  intolerablePreferNoScheduleCount,
  schedulingTaints,
  taintTolerationReason,
  tolerationsOf,
  unschedulableReason,
} from "./taint-toleration.js";

/** What the pods already on (or assumed onto) a node take of it. */
export interface NodeUsage {
  requested: Map<string, bigint>;
  /** cpu and memory with upstream's non-zero defaults for containers that request none (scoring only). */
  nonZeroCpu: bigint;
  nonZeroMemory: bigint;
  podCount: number;
  hostPorts: HostPort[];
  /** Counts the changes above: a score worked out at one count holds until the next. */
  changes: number;
  /** The node's last filter verdict and resource score, kept with what they were worked out from. */
  verdict: KeptVerdict | undefined;
  resourceScore: ResourceScore | undefined;
}

export function emptyUsage(): NodeUsage {
  return {
    requested: new Map(),
    nonZeroCpu: 0n,
    nonZeroMemory: 0n,
    podCount: 0,
    hostPorts: [],
    changes: 0,
    verdict: undefined,
    resourceScore: undefined,
  };
}

/** `DefaultMilliCPURequest` and `DefaultMemoryRequest` (100m, 200 MB), in milli-units. */
const DEFAULT_CPU_MILLI = 100n;
const DEFAULT_MEMORY_MILLI = 200n * 1024n * 1024n * 1000n;

function requestMilli(value: unknown): bigint {
  const text = quantityText(value);
  return (text === undefined ? undefined : parseMilli(text)) ?? 0n;
}

/** `GetNonzeroRequests` summed over the pod's containers: what scoring counts a container without requests as. */
export function nonZeroRequests(pod: Pod): { cpu: bigint; memory: bigint } {
  let cpu = 0n;
  let memory = 0n;
  for (const c of pod.spec?.containers ?? []) {
    const requests = c.resources?.requests ?? {};
    cpu += Object.hasOwn(requests, "cpu") ? requestMilli(requests["cpu"]) : DEFAULT_CPU_MILLI;
    memory += Object.hasOwn(requests, "memory") ? requestMilli(requests["memory"]) : DEFAULT_MEMORY_MILLI;
  }
  return { cpu, memory };
}

interface PodFootprint {
  requests: Map<string, bigint>;
  nonZero: { cpu: bigint; memory: bigint };
  hostPorts: HostPort[];
  /** Everything of the pod the filters read, by number (see filterInputOf); worked out at its first filtering. */
  filterInput?: number;
}

// What each pod takes, worked out once per object: the informer replaces an object on every
// change, and every attempt adds up all placed pods (the scheduler cache's NodeInfo).
const footprints = new WeakMap<Pod, PodFootprint>();

function footprintOf(pod: Pod): PodFootprint {
  let footprint = footprints.get(pod);
  if (footprint === undefined) {
    footprint = { requests: podRequests(pod), nonZero: nonZeroRequests(pod), hostPorts: hostPortsOf(pod) };
    footprints.set(pod, footprint);
  }
  return footprint;
}

export function addToUsage(usage: NodeUsage, pod: Pod): void {
  const { requests, nonZero, hostPorts } = footprintOf(pod);
  for (const [name, milli] of requests) usage.requested.set(name, (usage.requested.get(name) ?? 0n) + milli);
  usage.nonZeroCpu += nonZero.cpu;
  usage.nonZeroMemory += nonZero.memory;
  usage.podCount++;
  usage.changes++;
  if (hostPorts.length > 0) usage.hostPorts.push(...hostPorts);
}

/** Takes back what `addToUsage` added for the same pod object. */
export function removeFromUsage(usage: NodeUsage, pod: Pod): void {
  const { requests, nonZero, hostPorts } = footprintOf(pod);
  for (const [name, milli] of requests) usage.requested.set(name, (usage.requested.get(name) ?? 0n) - milli);
  usage.nonZeroCpu -= nonZero.cpu;
  usage.nonZeroMemory -= nonZero.memory;
  usage.podCount--;
  usage.changes++;
  for (const port of hostPorts) {
    const at = usage.hostPorts.indexOf(port);
    if (at >= 0) usage.hostPorts.splice(at, 1);
  }
}

const nodeTaints = new WeakMap<Node, ReturnType<typeof schedulingTaints>>();

/** `schedulingTaints`, worked out once per Node object (the informer replaces it on every change). */
function taintsOf(node: Node): ReturnType<typeof schedulingTaints> {
  let taints = nodeTaints.get(node);
  if (taints === undefined) nodeTaints.set(node, (taints = schedulingTaints(node)));
  return taints;
}

/** Numbers given to filter inputs' texts; a number is never given to another text. */
const filterInputNumbers = new Map<string, number>();
let nextFilterInputNumber = 0;
/** Texts numbered at most before the numbering starts over (with new numbers): pods of many shapes do not grow it for good. */
const MAX_FILTER_INPUTS = 4096;

/**
 * The pod's fields the filters below read (tolerations, nodeSelector, required node affinity), with
 * its host ports and requests, written as one text and numbered: two pods with the same number get
 * the same verdict on a node in the same state, and a node's kept verdict is checked against it
 * by comparing numbers. Pods of one controller share it.
 */
function filterInputOf(pod: Pod, footprint: PodFootprint): number {
  if (footprint.filterInput !== undefined) return footprint.filterInput;
  const text = canonicalJson({
    tolerations: tolerationsOf(pod),
    nodeSelector: pod.spec?.nodeSelector ?? {},
    required: nodeAffinityOf(pod)?.requiredDuringSchedulingIgnoredDuringExecution ?? null,
    hostPorts: footprint.hostPorts,
    requests: [...footprint.requests].map(([name, milli]) => [name, milli.toString()]),
  });
  let number = filterInputNumbers.get(text);
  if (number === undefined) {
    if (filterInputNumbers.size >= MAX_FILTER_INPUTS) filterInputNumbers.clear();
    filterInputNumbers.set(text, (number = nextFilterInputNumber++));
  }
  return (footprint.filterInput = number);
}

/** A node's last filter verdict, with what it was worked out from. */
interface KeptVerdict {
  node: Node;
  changes: number;
  filterInput: number;
  reasons: readonly string[];
}

/**
 * The default profile's filter plugins in upstream's order (NodeUnschedulable, TaintToleration,
 * NodeAffinity, NodePorts, NodeResourcesFit). As upstream, a node is judged by the first plugin that
 * rejects it: its reasons are the ones the FitError counts. The answer is shared: not to be changed.
 */
export function filterReasons(pod: Pod, node: Node, usage: NodeUsage): readonly string[] {
  return podFilter(pod)(node, usage);
}

/**
 * `filterReasons` for one pod over many nodes, with what it reads of the pod worked out once. A
 * verdict depends only on the Node, what its pods take (`changes` counts that) and the pod's filter
 * input: an attempt over 420 of 1,000 nodes finds all but the few the last pods went to unchanged
 * since the previous pod of the same kind was filtered, so each node's last verdict is kept with
 * its usage, as its resource score is.
 */
export function podFilter(pod: Pod): (node: Node, usage: NodeUsage) => readonly string[] {
  const footprint = footprintOf(pod);
  const filterInput = filterInputOf(pod, footprint);
  return (node, usage) => {
    const kept = usage.verdict;
    if (kept !== undefined && kept.node === node && kept.changes === usage.changes && kept.filterInput === filterInput) return kept.reasons;
    const reasons = judge(pod, node, usage, footprint);
    if (kept === undefined) usage.verdict = { node, changes: usage.changes, filterInput, reasons };
    else {
      kept.node = node;
      kept.changes = usage.changes;
      kept.filterInput = filterInput;
      kept.reasons = reasons;
    }
    return reasons;
  };
}

function judge(pod: Pod, node: Node, usage: NodeUsage, footprint: PodFootprint): readonly string[] {
  const unschedulable = unschedulableReason(pod, node);
  if (unschedulable !== undefined) return [unschedulable];
  const taint = taintTolerationReason(pod, taintsOf(node));
  if (taint !== undefined) return [taint];
  if (!requiredNodeAffinityMatches(pod, node)) return [ERR_REASON_POD_AFFINITY];
  if (hostPortsConflict(footprint.hostPorts, usage.hostPorts)) return [ERR_REASON_NODE_PORTS];
  return resourceFitReasons(pod, node, usage.requested, usage.podCount, footprint.requests);
}

export const MAX_NODE_SCORE = 100;

/** `DefaultNormalizeScore`: scales to 0..100 by the highest raw score, reversed when fewer is better. */
export function normalizeScores(raw: readonly number[], reverse: boolean): number[] {
  const max = Math.max(0, ...raw);
  if (max === 0) return raw.map(() => (reverse ? MAX_NODE_SCORE : 0));
  return raw.map((score) => {
    const scaled = Math.floor((MAX_NODE_SCORE * score) / max);
    return reverse ? MAX_NODE_SCORE - scaled : scaled;
  });
}

function leastRequested(requested: bigint, capacity: bigint): number {
  if (capacity <= 0n || requested > capacity) return 0;
  return Number(((capacity - requested) * BigInt(MAX_NODE_SCORE)) / capacity);
}

/** NodeResourcesFit's LeastAllocated score over cpu and memory (weight 1 each), counting non-zero requests. */
export function leastAllocatedScore(pod: Pod, node: Node, usage: NodeUsage): number {
  const allocatable = nodeAllocatable(node);
  const { nonZero } = footprintOf(pod);
  const cpu = leastRequested(usage.nonZeroCpu + nonZero.cpu, allocatable.get("cpu") ?? 0n);
  const memory = leastRequested(usage.nonZeroMemory + nonZero.memory, allocatable.get("memory") ?? 0n);
  return Math.floor((cpu + memory) / 2);
}

/** NodeResourcesBalancedAllocation: 100 when cpu and memory are equally used, less as they diverge. */
export function balancedAllocationScore(pod: Pod, node: Node, usage: NodeUsage): number {
  const allocatable = nodeAllocatable(node);
  const { requests } = footprintOf(pod);
  const fraction = (name: string) => {
    const capacity = allocatable.get(name) ?? 0n;
    if (capacity <= 0n) return 0;
    const requested = (usage.requested.get(name) ?? 0n) + (requests.get(name) ?? 0n);
    return Math.min(1, Number((requested * 1_000_000n) / capacity) / 1_000_000);
  };
  const std = Math.abs(fraction("cpu") - fraction("memory")) / 2;
  return Math.floor((1 - std) * MAX_NODE_SCORE);
}

/** The default profile's score plugins' weights. */
const WEIGHTS = { taintToleration: 3, nodeAffinity: 2, nodeResourcesFit: 1, balancedAllocation: 1 };

/** A node's weighted LeastAllocated and BalancedAllocation scores, with what they were worked out from. */
interface ResourceScore {
  node: Node;
  changes: number;
  nonZeroCpu: bigint;
  nonZeroMemory: bigint;
  cpu: bigint;
  memory: bigint;
  score: number;
}

/**
 * NodeResourcesFit's LeastAllocated and NodeResourcesBalancedAllocation scores, weighted. They
 * depend only on the node's allocatable, what its pods take and the pod's cpu and memory: most
 * attempts find them unchanged for all but the node the last pod went to, so each node's last
 * score is kept with its usage rather than worked out again from the quantities.
 */
function resourceScore(pod: Pod, { nonZero, requests }: PodFootprint, node: Node, usage: NodeUsage): number {
  const cpu = requests.get("cpu") ?? 0n;
  const memory = requests.get("memory") ?? 0n;
  const kept = usage.resourceScore;
  if (
    kept !== undefined &&
    kept.node === node &&
    kept.changes === usage.changes &&
    kept.nonZeroCpu === nonZero.cpu &&
    kept.nonZeroMemory === nonZero.memory &&
    kept.cpu === cpu &&
    kept.memory === memory
  )
    return kept.score;
  const score =
    WEIGHTS.nodeResourcesFit * leastAllocatedScore(pod, node, usage) +
    WEIGHTS.balancedAllocation * balancedAllocationScore(pod, node, usage);
  usage.resourceScore = { node, changes: usage.changes, nonZeroCpu: nonZero.cpu, nonZeroMemory: nonZero.memory, cpu, memory, score };
  return score;
}

/**
 * Each feasible node's weighted score (TaintToleration, NodeAffinity, NodeResourcesFit,
 * NodeResourcesBalancedAllocation), in the order of `nodes`.
 */
export function scoreNodes(pod: Pod, nodes: ReadonlyArray<{ node: Node; usage: NodeUsage }>): number[] {
  const taints = normalizeScores(
    nodes.map(({ node }) => intolerablePreferNoScheduleCount(pod, taintsOf(node))),
    true,
  );
  const affinity = normalizeScores(
    nodes.map(({ node }) => preferredNodeAffinityScore(pod, node)),
    false,
  );
  const footprint = footprintOf(pod);
  return nodes.map(
    ({ node, usage }, i) =>
      WEIGHTS.taintToleration * taints[i]! + WEIGHTS.nodeAffinity * affinity[i]! + resourceScore(pod, footprint, node, usage),
  );
}
