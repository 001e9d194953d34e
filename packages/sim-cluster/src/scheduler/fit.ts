import { parseMilli, quantityText, sumMilli } from "../quantity.js";
import type { Node } from "../resources/nodes.js";
import type { Pod } from "../resources/pods.js";

/** What a pod asks of a node: the larger of its containers' summed requests and its largest init container's (upstream's PodRequests). */
export function podRequests(pod: Pod): Map<string, bigint> {
  const out = new Map<string, bigint>();
  const names = new Set<string>();
  for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]) for (const n of Object.keys(c.resources?.requests ?? {})) names.add(n);
  for (const name of names) {
    const regular = sumMilli((pod.spec?.containers ?? []).map((c) => c.resources?.requests as Record<string, unknown> | undefined), name);
    let init = 0n;
    for (const c of pod.spec?.initContainers ?? []) {
      const text = quantityText(c.resources?.requests?.[name]);
      const milli = text === undefined ? undefined : parseMilli(text);
      if (milli !== undefined && milli > init) init = milli;
    }
    out.set(name, regular > init ? regular : init);
  }
  return out;
}

export function allocatableOf(node: Node): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const [name, value] of Object.entries(node.status?.allocatable ?? {})) {
    const milli = parseMilli(String(value));
    if (milli !== undefined) out.set(name, milli);
  }
  return out;
}

/**
 * The NodeResourcesFit filter (with the pod count): why `pod` does not fit `node` given what is
 * already placed there (`used`, by resource, and `podCount`), in upstream's words; empty when it fits.
 */
export function resourceFitReasons(pod: Pod, node: Node, used: Map<string, bigint>, podCount: number): string[] {
  const reasons: string[] = [];
  const allocatable = allocatableOf(node);
  const maxPods = allocatable.get("pods");
  if (maxPods !== undefined && BigInt(podCount + 1) * 1000n > maxPods) reasons.push("Too many pods");
  for (const [name, request] of podRequests(pod)) {
    if (request === 0n) continue;
    const have = allocatable.get(name) ?? 0n;
    if ((used.get(name) ?? 0n) + request > have) reasons.push(`Insufficient ${name}`);
  }
  return reasons;
}

/** The FitError message: `0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match Pod's node affinity/selector.` */
export function fitErrorMessage(nodeCount: number, reasonsByNode: readonly string[][]): string {
  const counts = new Map<string, number>();
  for (const reasons of reasonsByNode) for (const reason of reasons) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  const parts = [...counts].map(([reason, n]) => `${n} ${reason}`).sort();
  return `0/${nodeCount} nodes are available: ${parts.join(", ")}.`;
}
