import type { ReplicaSet } from "../resources/replicasets.js";

export const DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas";
export const MAX_REPLICAS = "deployment.kubernetes.io/max-replicas";

function replicasOf(rs: ReplicaSet): number {
  return rs.spec?.replicas ?? 0;
}

function createdAt(rs: ReplicaSet): number {
  return Date.parse(rs.metadata?.creationTimestamp ?? "") || 0;
}

function annotationNumber(rs: ReplicaSet, key: string): number | undefined {
  const text = rs.metadata?.annotations?.[key];
  if (text === undefined || !/^-?\d+$/.test(text)) return undefined;
  return Number(text);
}

/** `isScalingEvent`: an active ReplicaSet was sized for another replica count than the Deployment's. */
export function isScalingEvent(replicas: number, all: readonly ReplicaSet[]): boolean {
  return all.some(
    (rs) =>
      replicasOf(rs) > 0 && annotationNumber(rs, DESIRED_REPLICAS) !== undefined && annotationNumber(rs, DESIRED_REPLICAS) !== replicas,
  );
}

/** `FindActiveOrLatest`: the only active ReplicaSet, or the newest when none is active; undefined when several are. */
export function activeOrLatest(newRS: ReplicaSet | undefined, oldRSs: readonly ReplicaSet[]): ReplicaSet | undefined {
  const all = [...(newRS ? [newRS] : []), ...oldRSs];
  const active = all.filter((rs) => replicasOf(rs) > 0);
  if (active.length === 1) return active[0];
  if (active.length > 1) return undefined;
  if (newRS !== undefined) return newRS;
  return [...oldRSs].sort((a, b) => createdAt(b) - createdAt(a))[0];
}

/** Go's `math.Round` for the halves `integer.RoundToInt32` meets: away from zero. */
function roundHalfAway(value: number): number {
  return Math.sign(value) * Math.round(Math.abs(value));
}

/**
 * `GetProportion` for one ReplicaSet: its share of the replicas to add (or remove), by its size
 * against the Deployment's size before the scale (the `max-replicas` annotation), never beyond
 * what is left to distribute.
 */
function proportion(rs: ReplicaSet, replicas: number, maxSurge: number, statusReplicas: number, toAdd: number, added: number): number {
  if (replicasOf(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  let fraction: number;
  if (replicas === 0) fraction = -replicasOf(rs);
  else {
    let before = annotationNumber(rs, MAX_REPLICAS) ?? 0;
    if (before === 0) before = statusReplicas;
    fraction = before === 0 ? 0 : roundHalfAway((replicasOf(rs) * (replicas + maxSurge)) / before) - replicasOf(rs);
  }
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

/**
 * Upstream's proportional scaling (`DeploymentController.scale` for a rolling Deployment with
 * several active ReplicaSets): the replicas added or removed are spread over the active
 * ReplicaSets in proportion to their sizes, larger ones first (newer first when scaling up, older
 * first when scaling down), leftovers to the first. Returns each active ReplicaSet's new size.
 */
export function proportionalSizes(
  replicas: number,
  maxSurge: number,
  statusReplicas: number,
  all: readonly ReplicaSet[],
): Map<ReplicaSet, number> {
  const active = all.filter((rs) => replicasOf(rs) > 0);
  const current = active.reduce((n, rs) => n + replicasOf(rs), 0);
  const allowedSize = replicas > 0 ? replicas + maxSurge : 0;
  const toAdd = allowedSize - current;
  const newerFirst = toAdd > 0;
  active.sort((a, b) => {
    if (replicasOf(a) !== replicasOf(b)) return replicasOf(b) - replicasOf(a);
    const age = newerFirst ? createdAt(b) - createdAt(a) : createdAt(a) - createdAt(b);
    return age !== 0 ? age : (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? "");
  });
  const sizes = new Map<ReplicaSet, number>();
  let added = 0;
  for (const rs of active) {
    const share = toAdd !== 0 ? proportion(rs, replicas, maxSurge, statusReplicas, toAdd, added) : 0;
    sizes.set(rs, replicasOf(rs) + share);
    added += share;
  }
  if (toAdd !== 0 && active.length > 0) sizes.set(active[0]!, Math.max(0, sizes.get(active[0]!)! + toAdd - added));
  return sizes;
}
