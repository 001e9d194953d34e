import type { KubeObject, OwnerReference } from "../../api/types.js";
import type { Logger } from "../../server/logger.js";
import type { EventRecorder } from "../runtime.js";
import type { WorkQueue } from "../workqueue.js";
import {
  AbsentOwnerCache,
  GraphNode,
  formatIdentity,
  hasDeleteDependentsFinalizer,
  hasOrphanFinalizer,
  identityOf,
  isBeingDeleted,
  referenceMatches,
  referencesDiffs,
  sameIdentity,
  type ObjectIdentity,
} from "./graph.js";

export type GraphEvent =
  | { type: "add" | "update"; object: KubeObject; oldObject?: KubeObject }
  | { type: "delete"; object: KubeObject }
  /** The API server confirmed `identity` does not exist (it was only known from references). */
  | { type: "virtualDelete"; identity: ObjectIdentity };

/**
 * Keeps the ownership graph in step with what the informers report and feeds the two queues
 * the collector works from (upstream `GraphBuilder.processGraphChanges`). Runs synchronously
 * per event, so the graph is never seen half-updated.
 */
export class GraphBuilder {
  readonly uidToNode = new Map<string, GraphNode>();
  readonly absentOwners = new AbsentOwnerCache();

  constructor(
    private readonly attemptToDelete: WorkQueue,
    private readonly attemptToOrphan: WorkQueue,
    private readonly events: EventRecorder,
    private readonly logger: Logger,
  ) {}

  /** Queues a node by uid; the collector looks the node up when it processes it. */
  enqueueDelete(node: GraphNode): void {
    this.attemptToDelete.add(node.identity.uid);
  }

  process(event: GraphEvent): void {
    if (event.type === "virtualDelete") {
      this.#processVirtualDelete(event.identity);
      return;
    }
    const object = event.object;
    const identity = identityOf(object);
    let existing = this.uidToNode.get(identity.uid);
    if (existing !== undefined && !existing.observed) {
      // A virtual node's object showed up: it is observed from now on, with its real coordinates.
      if (!sameIdentity(identity, existing.identity)) {
        for (const dep of existing.dependents) {
          if (
            dep.owners.some(
              (owner) =>
                owner.uid === identity.uid &&
                referenceMatches(owner, identity) &&
                (identity.namespace === "" || dep.identity.namespace === identity.namespace),
            )
          )
            continue;
          if (identity.namespace !== "" && dep.identity.namespace !== identity.namespace)
            this.reportInvalidNamespaceOwnerRef(dep, identity.uid);
          this.enqueueDelete(dep);
        }
        existing = existing.clone();
        existing.identity = identity;
        existing.virtual = false;
        this.#replace(existing);
      }
      existing.observed = true;
      existing.virtual = false;
    }

    if (event.type === "delete") {
      if (existing === undefined) return;
      this.#removeObserved(existing, identity);
      return;
    }

    const owners = object.metadata?.ownerReferences ?? [];
    if (existing === undefined) {
      const node = new GraphNode(identity);
      node.owners = [...owners];
      node.observed = true;
      node.beingDeleted = isBeingDeleted(object);
      node.deletingDependents = node.beingDeleted && hasDeleteDependentsFinalizer(object);
      this.uidToNode.set(identity.uid, node);
      this.#addDependentToOwners(node, node.owners);
      this.#processTransitions(event.oldObject, object, node);
      return;
    }
    const { added, removed, changed } = referencesDiffs(existing.owners, owners);
    if (added.length > 0 || removed.length > 0 || changed.length > 0) {
      this.#addUnblockedOwnersToDeleteQueue(removed, changed);
      existing.owners = [...owners];
      this.#addDependentToOwners(existing, added);
      this.#removeDependentFromOwners(existing, removed);
    }
    if (isBeingDeleted(object)) existing.beingDeleted = true;
    this.#processTransitions(event.oldObject, object, existing);
  }

  /** Warns on the dependent that its namespaced owner cannot be in another namespace (upstream `reportInvalidNamespaceOwnerRef`). */
  reportInvalidNamespaceOwnerRef(node: GraphNode, ownerUid: string): void {
    const ref = node.owners.find((owner) => owner.uid === ownerUid);
    if (ref === undefined) return;
    const invalid: ObjectIdentity = {
      apiVersion: ref.apiVersion,
      kind: ref.kind,
      name: ref.name,
      uid: ref.uid,
      namespace: node.identity.namespace,
    };
    const { apiVersion, kind, name, uid, namespace } = node.identity;
    this.logger({
      level: "warn",
      msg: "item references an owner but does not match namespaces",
      item: formatIdentity(node.identity),
      owner: formatIdentity(invalid),
    });
    void this.events.event(
      { apiVersion, kind, name, uid, ...(namespace !== "" ? { namespace } : {}) },
      "Warning",
      "OwnerRefInvalidNamespace",
      `ownerRef ${formatIdentity(invalid)} does not exist in namespace ${JSON.stringify(namespace)}`,
    );
  }

  #replace(node: GraphNode): void {
    this.uidToNode.set(node.identity.uid, node);
  }

  #processTransitions(oldObject: KubeObject | undefined, object: KubeObject, node: GraphNode): void {
    if (startsWaitingFor(oldObject, object, hasOrphanFinalizer)) {
      this.logger({ msg: "add item to attemptToOrphan", item: formatIdentity(node.identity) });
      this.attemptToOrphan.add(node.identity.uid);
      return;
    }
    if (startsWaitingFor(oldObject, object, hasDeleteDependentsFinalizer)) {
      this.logger({ msg: "add item to attemptToDelete, its dependents go first", item: formatIdentity(node.identity) });
      node.deletingDependents = true;
      for (const dep of node.dependents) this.enqueueDelete(dep);
      this.enqueueDelete(node);
    }
  }

  #addDependentToOwners(node: GraphNode, owners: readonly OwnerReference[]): void {
    let potentiallyInvalid = false;
    for (const owner of owners) {
      let ownerNode = this.uidToNode.get(owner.uid);
      const known = ownerNode !== undefined;
      if (ownerNode === undefined) {
        // Not seen yet: a virtual node, verified against the API server by the collector.
        ownerNode = new GraphNode({
          apiVersion: owner.apiVersion,
          kind: owner.kind,
          name: owner.name,
          uid: owner.uid,
          namespace: node.identity.namespace,
        });
        ownerNode.virtual = true;
        this.uidToNode.set(owner.uid, ownerNode);
      }
      ownerNode.dependents.add(node);
      if (!known) {
        this.enqueueDelete(ownerNode);
        continue;
      }
      if (potentiallyInvalid) continue;
      const ownerNamespaced = ownerNode.identity.namespace !== "";
      if (ownerNamespaced && ownerNode.identity.namespace !== node.identity.namespace) {
        // A namespaced owner only counts in its dependent's namespace.
        if (ownerNode.observed) this.reportInvalidNamespaceOwnerRef(node, owner.uid);
        potentiallyInvalid = true;
      } else if (!referenceMatches(owner, ownerNode.identity)) {
        potentiallyInvalid = true;
      } else if (!ownerNamespaced && ownerNode.identity.namespace !== node.identity.namespace && !ownerNode.observed) {
        potentiallyInvalid = true;
      }
    }
    // The collector verifies the references and deletes the dependent if every owner is absent.
    if (potentiallyInvalid) this.enqueueDelete(node);
  }

  #removeDependentFromOwners(node: GraphNode, owners: readonly OwnerReference[]): void {
    for (const owner of owners) this.uidToNode.get(owner.uid)?.dependents.delete(node);
  }

  /** Owners waiting on dependents get another look when a blocking reference goes away. */
  #addUnblockedOwnersToDeleteQueue(
    removed: readonly OwnerReference[],
    changed: ReadonlyArray<{ oldRef: OwnerReference; newRef: OwnerReference }>,
  ): void {
    for (const ref of removed) {
      if (ref.blockOwnerDeletion !== true) continue;
      const owner = this.uidToNode.get(ref.uid);
      if (owner?.deletingDependents) this.enqueueDelete(owner);
    }
    for (const { oldRef, newRef } of changed) {
      if (oldRef.blockOwnerDeletion === true && newRef.blockOwnerDeletion !== true) {
        const owner = this.uidToNode.get(newRef.uid);
        if (owner?.deletingDependents) this.enqueueDelete(owner);
      }
    }
  }

  #removeObserved(node: GraphNode, deletedIdentity: ObjectIdentity): void {
    this.#removeNode(node);
    if (node.dependents.size > 0) this.absentOwners.add(deletedIdentity);
    for (const dep of node.dependents) this.enqueueDelete(dep);
    for (const owner of node.owners) {
      const ownerNode = this.uidToNode.get(owner.uid);
      // Its owner may have been waiting for this dependent to go.
      if (ownerNode?.deletingDependents) this.enqueueDelete(ownerNode);
    }
  }

  #removeNode(node: GraphNode): void {
    if (this.uidToNode.get(node.identity.uid) === node) this.uidToNode.delete(node.identity.uid);
    this.#removeDependentFromOwners(node, node.owners);
  }

  #processVirtualDelete(deleted: ObjectIdentity): void {
    const existing = this.uidToNode.get(deleted.uid);
    if (existing === undefined) return;
    const matches = (dep: GraphNode) =>
      dep.owners.some(
        (owner) =>
          referenceMatches(owner, deleted) &&
          (deleted.namespace === "" || dep.identity.namespace === deleted.namespace || existing.identity.namespace === ""),
      );
    const matching = [...existing.dependents].filter(matches);
    const nonMatching = [...existing.dependents].filter((dep) => !matches(dep));
    if (existing.virtual) {
      if (nonMatching.length > 0) {
        // Dependents disagree on where this owner is: keep the node for the others.
        if (matching.length > 0) {
          this.absentOwners.add(deleted);
          for (const dep of matching) this.enqueueDelete(dep);
        }
        if (sameIdentity(existing.identity, deleted)) {
          const alternate = nonMatching[0]!;
          const ref = alternate.owners.find((owner) => owner.uid === deleted.uid)!;
          const replacement = existing.clone();
          replacement.identity = {
            apiVersion: ref.apiVersion,
            kind: ref.kind,
            name: ref.name,
            uid: ref.uid,
            namespace: alternate.identity.namespace,
          };
          for (const dep of matching) replacement.dependents.delete(dep);
          this.#replace(replacement);
          this.attemptToDelete.addRateLimited(replacement.identity.uid);
        }
        return;
      }
    } else if (!sameIdentity(existing.identity, deleted)) {
      // An observed object is not removed on a lookup under other coordinates.
      if (matching.length > 0) {
        this.absentOwners.add(deleted);
        for (const dep of matching) this.enqueueDelete(dep);
      }
      return;
    }
    this.#removeObserved(existing, deleted);
  }
}

/** Whether `object` has just started waiting on `finalizer` (deletionTimestamp set and finalizer present, newly). */
function startsWaitingFor(oldObject: KubeObject | undefined, object: KubeObject, has: (o: KubeObject | undefined) => boolean): boolean {
  if (!isBeingDeleted(object) || !has(object)) return false;
  if (oldObject === undefined) return true;
  return !isBeingDeleted(oldObject) || !has(oldObject);
}
