import type { KubeObject, OwnerReference } from "../../api/types.js";
import { FINALIZER_DELETE_DEPENDENTS, FINALIZER_ORPHAN_DEPENDENTS } from "../../validation/object-meta.js";
import { LruCache } from "../../registry/lru-cache.js";

/** Where an object is: its owner-reference coordinates plus namespace (upstream `objectReference`). */
export interface ObjectIdentity {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  /** Empty for cluster-scoped objects (and, for virtual nodes, the referencing dependent's namespace). */
  namespace: string;
}

/** Upstream's `objectReference.String()`, used in messages and events. */
export function formatIdentity(id: ObjectIdentity): string {
  return `[${id.apiVersion}/${id.kind}, namespace: ${id.namespace}, name: ${id.name}, uid: ${id.uid}]`;
}

export function sameIdentity(a: ObjectIdentity, b: ObjectIdentity): boolean {
  return a.apiVersion === b.apiVersion && a.kind === b.kind && a.name === b.name && a.uid === b.uid && a.namespace === b.namespace;
}

export function identityKey(id: ObjectIdentity): string {
  return `${id.apiVersion}|${id.kind}|${id.namespace}|${id.name}|${id.uid}`;
}

/** An object in the ownership graph; virtual nodes stand for owners referenced but not (yet) observed. */
export class GraphNode {
  readonly dependents = new Set<GraphNode>();
  owners: OwnerReference[] = [];
  /** The object has `deletionTimestamp` and the `foregroundDeletion` finalizer: its dependents go first. */
  deletingDependents = false;
  beingDeleted = false;
  /** Known only from references; its existence is still to be verified. */
  virtual = false;
  /** Seen through an informer event (a virtual node becomes observed when its object shows up). */
  observed = false;

  constructor(public identity: ObjectIdentity) {}

  /** A copy with the same dependents and state (the dependents' own owner links are by uid). */
  clone(): GraphNode {
    const copy = new GraphNode({ ...this.identity });
    for (const dep of this.dependents) copy.dependents.add(dep);
    copy.owners = [...this.owners];
    copy.deletingDependents = this.deletingDependents;
    copy.beingDeleted = this.beingDeleted;
    copy.virtual = this.virtual;
    copy.observed = this.observed;
    return copy;
  }

  /** Dependents whose reference to this node has `blockOwnerDeletion: true`. */
  blockingDependents(): GraphNode[] {
    return [...this.dependents].filter((dep) =>
      dep.owners.some((owner) => owner.uid === this.identity.uid && owner.blockOwnerDeletion === true),
    );
  }
}

export function identityOf(object: KubeObject): ObjectIdentity {
  const meta = object.metadata ?? {};
  return {
    apiVersion: object.apiVersion ?? "",
    kind: object.kind ?? "",
    name: meta.name ?? "",
    uid: meta.uid ?? "",
    namespace: meta.namespace ?? "",
  };
}

export function isBeingDeleted(object: KubeObject | undefined): boolean {
  return object?.metadata?.deletionTimestamp !== undefined;
}

export function hasFinalizer(object: KubeObject | undefined, finalizer: string): boolean {
  return (object?.metadata?.finalizers ?? []).includes(finalizer);
}

export const hasOrphanFinalizer = (object: KubeObject | undefined) => hasFinalizer(object, FINALIZER_ORPHAN_DEPENDENTS);
export const hasDeleteDependentsFinalizer = (object: KubeObject | undefined) => hasFinalizer(object, FINALIZER_DELETE_DEPENDENTS);

/** Whether `owner` is referenced with exactly these coordinates (uid, name, kind, apiVersion). */
export function referenceMatches(owner: OwnerReference, identity: ObjectIdentity): boolean {
  return (
    owner.uid === identity.uid && owner.name === identity.name && owner.kind === identity.kind && owner.apiVersion === identity.apiVersion
  );
}

/** Owner references added, removed and changed between two lists, by uid (upstream `referencesDiffs`). */
export function referencesDiffs(old: readonly OwnerReference[], next: readonly OwnerReference[]) {
  const oldByUid = new Map(old.map((r) => [r.uid, r]));
  const nextByUid = new Map(next.map((r) => [r.uid, r]));
  const added = next.filter((r) => !oldByUid.has(r.uid));
  const removed = old.filter((r) => !nextByUid.has(r.uid));
  const changed: Array<{ oldRef: OwnerReference; newRef: OwnerReference }> = [];
  for (const r of next) {
    const before = oldByUid.get(r.uid);
    if (before !== undefined && JSON.stringify(before) !== JSON.stringify(r)) changed.push({ oldRef: before, newRef: r });
  }
  return { added, removed, changed };
}

/**
 * Identities known not to exist (upstream `absentOwnerCache`): a small LRU so a burst of
 * dependents of one deleted owner costs one lookup.
 */
export class AbsentOwnerCache {
  readonly #entries: LruCache<string, true>;
  constructor(capacity = 500) {
    this.#entries = new LruCache(capacity);
  }
  add(id: ObjectIdentity): void {
    this.#entries.set(identityKey(id), true);
  }
  has(id: ObjectIdentity): boolean {
    return this.#entries.has(identityKey(id));
  }
}
