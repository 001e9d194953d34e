import type { KubeObject } from "@kubekit/generic-controlplane";

/*
 * The decision order. The API server's creationTimestamp has one-second granularity, so two
 * claims created in the same second need a tie-break every arbiter instance computes the same
 * way: the resourceVersion, which the server assigns from one increasing counter per write. An
 * object's resourceVersion is its creation revision until the first write after creation; the
 * arbiter's first write to a claim is the status that records its place (`status.sequence`),
 * so once decided the order no longer depends on anything that changes.
 */

/** Compares resourceVersions as numbers when both are decimal (they are on this server and on etcd), else as text. */
export function compareResourceVersion(a: string, b: string): number {
  if (/^\d+$/.test(a) && /^\d+$/.test(b)) {
    if (a.length !== b.length) return a.length - b.length;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Creation order of undecided objects: creationTimestamp, then resourceVersion, then name. */
export function compareCreation(a: KubeObject, b: KubeObject): number {
  const ta = a.metadata?.creationTimestamp ?? "";
  const tb = b.metadata?.creationTimestamp ?? "";
  if (ta !== tb) return Date.parse(ta) - Date.parse(tb) || (ta < tb ? -1 : 1);
  const byVersion = compareResourceVersion(a.metadata?.resourceVersion ?? "", b.metadata?.resourceVersion ?? "");
  if (byVersion !== 0) return byVersion;
  const na = a.metadata?.name ?? "";
  const nb = b.metadata?.name ?? "";
  return na < nb ? -1 : na > nb ? 1 : 0;
}

type Sequenced = KubeObject & { status?: { sequence?: number } };

/**
 * Objects in decision order: those with a recorded `status.sequence` by it, then the others in
 * creation order, each given the next sequence. Returns the order and the sequence of each name.
 */
export function decisionOrder<T extends Sequenced>(objects: readonly T[]): { ordered: T[]; sequence: Map<string, number> } {
  const decided = objects
    .filter((o) => typeof o.status?.sequence === "number")
    .sort((a, b) => a.status!.sequence! - b.status!.sequence! || compareCreation(a, b));
  const undecided = objects.filter((o) => typeof o.status?.sequence !== "number").sort(compareCreation);
  const sequence = new Map<string, number>();
  let next = 1;
  for (const object of decided) {
    const value = object.status!.sequence!;
    sequence.set(object.metadata!.name!, value);
    next = Math.max(next, value + 1);
  }
  for (const object of undecided) sequence.set(object.metadata!.name!, next++);
  return { ordered: [...decided, ...undecided], sequence };
}
