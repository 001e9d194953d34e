import type { DeleteOptions, KubeObject, OwnerReference } from "../../api/types.js";
import { FINALIZER_DELETE_DEPENDENTS, FINALIZER_ORPHAN_DEPENDENTS } from "../../validation/object-meta.js";
import { isConflict, isNotFound, type KubeClient } from "../client.js";
import { discoverPreferredResources, GroupDiscoveryFailedError, supportsVerbs, type DiscoveredResource } from "../discovery.js";
import { dropManagedFields, type Informer } from "../informer.js";
import { SharedInformerFactory, aborted, runWorkers, type Controller, type ControllerContext } from "../runtime.js";
import { WorkQueue } from "../workqueue.js";
import { GraphBuilder } from "./graph-builder.js";
import { formatIdentity, hasDeleteDependentsFinalizer, hasOrphanFinalizer, type GraphNode, type ObjectIdentity } from "./graph.js";

export interface GarbageCollectorOptions {
  /** Workers per queue (default 20, kube-controller-manager's `--concurrent-gc-syncs`). */
  workers?: number;
  /** Resources never collected nor watched, as `resource.group` (default: core and events.k8s.io events, as upstream). */
  ignoredResources?: readonly string[];
}

const DEFAULT_IGNORED = ["events.", "events.events.k8s.io"];

/** How long workers wait for a newly monitored resource's first list (upstream: the resync period, 30 s by default). */
const SYNC_TIMEOUT_MS = 30_000;

/** Why `attemptToDelete` forgets a node instead of retrying. */
const enum Outcome {
  Done,
  /** A virtual delete went to the graph; it handles the rest. */
  VirtualDeleteEnqueued,
  /** A cluster-scoped object names a namespaced owner kind: retrying cannot fix it. */
  NamespacedOwnerOfClusterScoped,
}

/**
 * The garbage collector (upstream `pkg/controller/garbagecollector`): an ownership graph over
 * every served resource with list, watch and delete (kept current as types come and go) drives
 * background, foreground (`foregroundDeletion`, `blockOwnerDeletion`) and orphan (`orphan`)
 * propagation. A dependent goes once none of its owners exists (a reference whose uid does not
 * match counts as absent); a namespaced owner counts only in its dependent's namespace.
 */
export function garbageCollector(options: GarbageCollectorOptions = {}): Controller {
  return {
    name: "garbagecollector",
    run: (context, signal) => new GarbageCollector(context, options).run(signal),
  };
}

class GarbageCollector {
  readonly #context: ControllerContext;
  readonly #client: KubeClient;
  readonly #attemptToDelete: WorkQueue;
  readonly #attemptToOrphan: WorkQueue;
  readonly #graph: GraphBuilder;
  readonly #monitors = new Map<string, { resource: DiscoveredResource; informer: Informer }>();
  /** Metadata-only informers of its own, as upstream's collector: owner references are all it reads. */
  readonly #informers: SharedInformerFactory;
  readonly #ignored: Set<string>;
  readonly #workers: number;
  /**
   * Settles once every monitor started so far has its first list in the graph. Workers wait on it
   * (a later one at most SYNC_TIMEOUT_MS, as upstream's Sync), so no owner is orphaned or
   * dependent deleted on a graph that is still missing a resource's objects.
   */
  #graphSynced: Promise<void> = Promise.resolve();
  /** Whether `#graphSynced` has settled, so a work item on a synced graph waits on nothing. */
  #graphIsSynced = true;

  constructor(context: ControllerContext, options: GarbageCollectorOptions) {
    this.#context = context;
    this.#client = context.client;
    const registry = context.registry !== undefined ? { registry: context.registry } : {};
    this.#attemptToDelete = new WorkQueue({
      name: "garbage_collector_attempt_to_delete",
      ...registry,
    });
    this.#attemptToOrphan = new WorkQueue({
      name: "garbage_collector_attempt_to_orphan",
      ...registry,
    });
    this.#graph = new GraphBuilder(
      this.#attemptToDelete,
      this.#attemptToOrphan,
      context.events("garbage-collector-controller"),
      context.logger,
    );
    this.#ignored = new Set(options.ignoredResources ?? DEFAULT_IGNORED);
    this.#workers = options.workers ?? 20;
    // kube-controller-manager's metadata informers drop managed fields too: the graph never reads them.
    this.#informers = new SharedInformerFactory(context.client, {
      ...context.informerOptions,
      metadataOnly: true,
      transform: dropManagedFields,
    });
  }

  async run(signal: AbortSignal): Promise<void> {
    const logger = this.#context.logger;
    this.#informers.start();
    await this.#syncMonitors().catch((error: unknown) =>
      logger({
        level: "warn",
        msg: "garbage collector discovery failed",
        error: String(error),
      }),
    );
    // Upstream's Run waits for the graph before its first worker, however long that takes.
    await Promise.race([this.#graphSynced, aborted(signal)]);
    // Resource types come and go: follow discovery.
    const resync = setInterval(() => {
      void this.#syncMonitors().catch((error: unknown) =>
        logger({
          level: "warn",
          msg: "garbage collector discovery failed",
          error: String(error),
        }),
      );
    }, this.#context.discoveryPeriodMs);
    resync.unref();
    const deleters = runWorkers(
      this.#attemptToDelete,
      this.#workers,
      async (uid) => {
        await this.#whenGraphSynced();
        await this.#attemptToDeleteWorker(uid);
      },
      logger,
    );
    const orphaners = runWorkers(
      this.#attemptToOrphan,
      this.#workers,
      async (uid) => {
        await this.#whenGraphSynced();
        await this.#attemptToOrphanWorker(uid);
      },
      logger,
    );
    await aborted(signal);
    clearInterval(resync);
    await Promise.all([this.#attemptToDelete.shutDownWithDrain(), this.#attemptToOrphan.shutDownWithDrain()]);
    await Promise.all([deleters, orphaners]);
    await this.#informers.stop();
  }

  /** Starts an informer per deletable resource not yet monitored; stops those no longer served. */
  async #syncMonitors(): Promise<void> {
    let resources: DiscoveredResource[];
    try {
      resources = await discoverPreferredResources(this.#client);
    } catch (error) {
      if (!(error instanceof GroupDiscoveryFailedError)) throw error;
      resources = error.resources;
    }
    this.#context.mapper.set(resources);
    const deletable = resources.filter(
      (r) => supportsVerbs(r, "delete", "list", "watch") && !this.#ignored.has(`${r.resource}.${r.group}`),
    );
    const wanted = new Set(deletable.map((r) => `${r.group}/${r.resource}`));
    const started: Informer[] = [];
    for (const resource of deletable) {
      const key = `${resource.group}/${resource.resource}`;
      if (this.#monitors.has(key)) continue;
      const informer = this.#informers.informerFor(resource);
      informer.addEventHandler({
        add: (object) => this.#graph.process({ type: "add", object }),
        update: (oldObject, object) => this.#graph.process({ type: "update", object, oldObject }),
        delete: (object) => this.#graph.process({ type: "delete", object }),
      });
      informer.start();
      started.push(informer);
      this.#monitors.set(key, { resource, informer });
      this.#context.logger({
        msg: "garbage collector monitoring",
        resource: key,
      });
    }
    if (started.length > 0) {
      const synced = Promise.all([this.#graphSynced, ...started.map((informer) => informer.waitForSync())]).then(() => {
        if (this.#graphSynced === synced) this.#graphIsSynced = true;
      });
      this.#graphSynced = synced;
      this.#graphIsSynced = false;
    }
    for (const [key, monitor] of this.#monitors) {
      if (wanted.has(key)) continue;
      this.#monitors.delete(key);
      await this.#informers.remove(monitor.resource);
    }
  }

  /** Waits for the graph, giving up after SYNC_TIMEOUT_MS (a resource that never lists must not stop collection). */
  async #whenGraphSynced(): Promise<void> {
    if (this.#graphIsSynced) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, SYNC_TIMEOUT_MS);
      timer.unref();
    });
    await Promise.race([this.#graphSynced, timeout]);
    clearTimeout(timer);
  }

  // ---- attemptToDelete ---------------------------------------------------------------------

  async #attemptToDeleteWorker(uid: string): Promise<void> {
    const node = this.#graph.uidToNode.get(uid);
    if (node === undefined) return;
    const outcome = await this.#attemptToDeleteItem(node);
    if (outcome !== Outcome.Done) return;
    // A virtual node not yet observed is checked again, so one added and removed while the watch
    // was down does not linger (upstream issue 56121).
    if (!node.observed && this.#graph.uidToNode.get(uid) === node)
      throw new Error(`item ${formatIdentity(node.identity)} hasn't been observed via informer yet`);
  }

  async #attemptToDeleteItem(item: GraphNode): Promise<Outcome> {
    if (item.beingDeleted && !item.deletingDependents) return Outcome.Done;
    if (!item.deletingDependents) {
      const deleted = await this.#deleteFromInformerCopy(item);
      if (deleted) return Outcome.Done;
    }
    const latest = await this.#getObject(item.identity);
    if (latest === undefined || latest.metadata?.uid !== item.identity.uid) {
      this.#graph.process({ type: "virtualDelete", identity: item.identity });
      return Outcome.VirtualDeleteEnqueued;
    }
    if (item.deletingDependents) {
      await this.#processDeletingDependentsItem(item);
      return Outcome.Done;
    }
    const references = latest.metadata?.ownerReferences ?? [];
    if (references.length === 0) return Outcome.Done;

    const classified = await this.#classifyReferences(item, references);
    if (classified === Outcome.NamespacedOwnerOfClusterScoped) return classified;
    const { solid, dangling, waiting } = classified;
    if (solid.length > 0) {
      if (dangling.length === 0 && waiting.length === 0) return Outcome.Done;
      // Some owner still holds it: only the references to absent or foreground-deleting owners go.
      const remove = new Set([...dangling, ...waiting].map((r) => r.uid));
      this.#context.logger({
        msg: "removing dangling owner references",
        item: formatIdentity(item.identity),
        owners: [...remove],
      });
      await this.#patchOwnerReferences(item, (refs) => refs.filter((r) => !remove.has(r.uid)));
      return Outcome.Done;
    }
    if (waiting.length > 0 && item.dependents.size > 0) {
      for (const dep of item.dependents) {
        if (!dep.deletingDependents) continue;
        // Break a possible cycle of foreground deletions: make this item's references non-blocking first.
        this.#context.logger({
          msg: "unblocking owner references to prevent a cycle",
          item: formatIdentity(item.identity),
        });
        await this.#patchOwnerReferences(item, (refs) =>
          refs.map((r) => (r.blockOwnerDeletion === true ? { ...r, blockOwnerDeletion: false } : r)),
        );
        break;
      }
      // Its owner waits for it and it has dependents itself: it goes in the foreground too.
      await this.#deleteObject(item.identity, "Foreground");
      return Outcome.Done;
    }
    const policy = propagationPolicyOf(latest);
    this.#context.logger({
      msg: "deleting object",
      item: formatIdentity(item.identity),
      propagationPolicy: policy,
    });
    await this.#deleteObject(item.identity, policy);
    return Outcome.Done;
  }

  /**
   * Upstream reads a dependent live before deleting it. When the collector's informer copy already
   * shows every owner known absent, the DELETE carries that copy's uid and resourceVersion instead,
   * so it lands only on the very object classified; if the object changed or went since (a 409 or
   * 404), the live read decides as upstream's does. False when the copy cannot decide or the
   * DELETE did not land.
   */
  async #deleteFromInformerCopy(item: GraphNode): Promise<boolean> {
    const { ref, namespace, monitor } = await this.#resourceOf(item.identity);
    if (ref.namespaced && !namespace) return false;
    const copy = this.#monitors.get(monitor)?.informer.cache.get(namespace ? `${namespace}/${item.identity.name}` : item.identity.name);
    const meta = copy?.metadata;
    if (copy === undefined || meta?.uid !== item.identity.uid || meta.resourceVersion === undefined || meta.deletionTimestamp !== undefined)
      return false;
    const references = meta.ownerReferences ?? [];
    if (references.length === 0 || !references.every((reference) => this.#knownAbsent(reference, item))) return false;
    const policy = propagationPolicyOf(copy);
    this.#context.logger({
      msg: "deleting object",
      item: formatIdentity(item.identity),
      propagationPolicy: policy,
    });
    try {
      await this.#client.delete(ref, namespace, item.identity.name, {
        propagationPolicy: policy,
        preconditions: {
          uid: item.identity.uid,
          resourceVersion: meta.resourceVersion,
        },
      });
      return true;
    } catch (error) {
      if (isNotFound(error) || isPreconditionFailure(error)) return false;
      throw error;
    }
  }

  /** Whether the absent-owner cache already holds the reference's owner, cluster-wide or in the item's namespace. */
  #knownAbsent(reference: OwnerReference, item: GraphNode): boolean {
    const key: ObjectIdentity = {
      apiVersion: reference.apiVersion,
      kind: reference.kind,
      name: reference.name,
      uid: reference.uid,
      namespace: "",
    };
    return (
      this.#graph.absentOwners.has(key) ||
      this.#graph.absentOwners.has({
        ...key,
        namespace: item.identity.namespace,
      })
    );
  }

  async #processDeletingDependentsItem(item: GraphNode): Promise<void> {
    const blocking = item.blockingDependents();
    if (blocking.length === 0) {
      this.#context.logger({
        msg: "removing foregroundDeletion finalizer",
        item: formatIdentity(item.identity),
      });
      await this.#removeFinalizer(item, FINALIZER_DELETE_DEPENDENTS);
      return;
    }
    for (const dep of blocking) if (!dep.deletingDependents) this.#graph.enqueueDelete(dep);
  }

  async #classifyReferences(
    item: GraphNode,
    references: readonly OwnerReference[],
  ): Promise<
    | {
        solid: OwnerReference[];
        dangling: OwnerReference[];
        waiting: OwnerReference[];
      }
    | Outcome.NamespacedOwnerOfClusterScoped
  > {
    const solid: OwnerReference[] = [];
    const dangling: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    for (const reference of references) {
      const result = await this.#isDangling(reference, item);
      if (result === Outcome.NamespacedOwnerOfClusterScoped) return result;
      if (result.dangling) dangling.push(reference);
      else if (result.owner?.metadata?.deletionTimestamp !== undefined && hasDeleteDependentsFinalizer(result.owner))
        waiting.push(reference);
      else solid.push(reference);
    }
    return { solid, dangling, waiting };
  }

  async #isDangling(
    reference: OwnerReference,
    item: GraphNode,
  ): Promise<{ dangling: boolean; owner?: KubeObject } | Outcome.NamespacedOwnerOfClusterScoped> {
    const key: ObjectIdentity = {
      apiVersion: reference.apiVersion,
      kind: reference.kind,
      name: reference.name,
      uid: reference.uid,
      namespace: "",
    };
    if (this.#knownAbsent(reference, item)) return { dangling: true };
    const namespacedKey = { ...key, namespace: item.identity.namespace };
    const resource = await this.#context.mapper.lookup(reference.apiVersion, reference.kind);
    if (resource === undefined) throw new Error(`unable to get REST mapping for ${reference.apiVersion}/${reference.kind}`);
    if (resource.namespaced && item.identity.namespace === "") {
      this.#graph.reportInvalidNamespaceOwnerRef(item, reference.uid);
      return Outcome.NamespacedOwnerOfClusterScoped;
    }
    const cacheKey = resource.namespaced ? namespacedKey : key;
    let owner: KubeObject;
    try {
      owner = await this.#client.get(
        { ...resource, version: versionOf(reference.apiVersion) },
        resource.namespaced ? item.identity.namespace : undefined,
        reference.name,
      );
    } catch (error) {
      if (!isNotFound(error)) throw error;
      this.#graph.absentOwners.add(cacheKey);
      this.#reportIfElsewhere(item, reference);
      return { dangling: true };
    }
    if (owner.metadata?.uid !== reference.uid) {
      this.#graph.absentOwners.add(cacheKey);
      this.#reportIfElsewhere(item, reference);
      return { dangling: true };
    }
    return { dangling: false, owner };
  }

  /** A namespaced owner that exists, but in another namespace than its dependent: say so on the dependent. */
  #reportIfElsewhere(item: GraphNode, reference: OwnerReference): void {
    const known = this.#graph.uidToNode.get(reference.uid);
    if (known?.observed && known.identity.namespace !== "" && known.identity.namespace !== item.identity.namespace) {
      this.#graph.reportInvalidNamespaceOwnerRef(item, reference.uid);
    }
  }

  // ---- attemptToOrphan ---------------------------------------------------------------------

  async #attemptToOrphanWorker(uid: string): Promise<void> {
    const owner = this.#graph.uidToNode.get(uid);
    if (owner === undefined) return;
    const failures: string[] = [];
    await Promise.all(
      [...owner.dependents].map(async (dep) => {
        try {
          await this.#patchOwnerReferences(dep, (refs) => refs.filter((r) => r.uid !== owner.identity.uid));
        } catch (error) {
          if (!isNotFound(error)) failures.push(`orphaning ${formatIdentity(dep.identity)} failed, ${String(error)}`);
        }
      }),
    );
    if (failures.length > 0) throw new Error(failures.join("; "));
    await this.#removeFinalizer(owner, FINALIZER_ORPHAN_DEPENDENTS);
  }

  // ---- API calls ---------------------------------------------------------------------------

  async #resourceOf(identity: ObjectIdentity) {
    const resource = await this.#context.mapper.lookup(identity.apiVersion, identity.kind);
    if (resource === undefined) throw new Error(`unable to get REST mapping for ${identity.apiVersion}/${identity.kind}`);
    return {
      ref: { ...resource, version: versionOf(identity.apiVersion) },
      namespace: resource.namespaced ? identity.namespace : undefined,
      /** The key of the monitor watching this resource. */
      monitor: `${resource.group}/${resource.resource}`,
    };
  }

  async #getObject(identity: ObjectIdentity): Promise<KubeObject | undefined> {
    const { ref, namespace } = await this.#resourceOf(identity);
    if (ref.namespaced && !namespace) return undefined;
    try {
      return await this.#client.get(ref, namespace, identity.name);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async #deleteObject(identity: ObjectIdentity, policy: NonNullable<DeleteOptions["propagationPolicy"]>): Promise<void> {
    const { ref, namespace } = await this.#resourceOf(identity);
    try {
      await this.#client.delete(ref, namespace, identity.name, {
        propagationPolicy: policy,
        preconditions: { uid: identity.uid },
      });
    } catch (error) {
      // Gone already, or replaced by a namesake (the uid precondition failed): nothing to do.
      if (isNotFound(error)) return;
      if (isPreconditionFailure(error)) return;
      throw error;
    }
  }

  /** Rewrites an object's ownerReferences with optimistic concurrency (merge patch carrying uid and resourceVersion). */
  async #patchOwnerReferences(node: GraphNode, change: (refs: OwnerReference[]) => OwnerReference[]): Promise<void> {
    const { ref, namespace } = await this.#resourceOf(node.identity);
    const current = await this.#client.get(ref, namespace, node.identity.name);
    if (current.metadata?.uid !== node.identity.uid) return;
    const refs = current.metadata.ownerReferences ?? [];
    const next = change(refs);
    if (JSON.stringify(next) === JSON.stringify(refs)) return;
    await this.#client.patch(ref, namespace, node.identity.name, {
      metadata: {
        uid: node.identity.uid,
        resourceVersion: current.metadata.resourceVersion,
        ownerReferences: next.length > 0 ? next : null,
      },
    });
  }

  async #removeFinalizer(node: GraphNode, finalizer: string): Promise<void> {
    const { ref, namespace } = await this.#resourceOf(node.identity);
    for (;;) {
      let current: KubeObject;
      try {
        current = await this.#client.get(ref, namespace, node.identity.name);
      } catch (error) {
        if (isNotFound(error)) return;
        throw error;
      }
      if (current.metadata?.uid !== node.identity.uid) return;
      const finalizers = current.metadata.finalizers ?? [];
      if (!finalizers.includes(finalizer)) return;
      const next = finalizers.filter((f) => f !== finalizer);
      try {
        await this.#client.patch(ref, namespace, node.identity.name, {
          metadata: {
            uid: node.identity.uid,
            resourceVersion: current.metadata.resourceVersion,
            finalizers: next.length > 0 ? next : null,
          },
        });
        return;
      } catch (error) {
        if (isNotFound(error)) return;
        if (!isConflict(error)) throw error;
      }
    }
  }
}

function propagationPolicyOf(object: KubeObject): NonNullable<DeleteOptions["propagationPolicy"]> {
  if (hasOrphanFinalizer(object)) return "Orphan";
  if (hasDeleteDependentsFinalizer(object)) return "Foreground";
  return "Background";
}

/** A 409 for a DELETE precondition (uid or resourceVersion) the object no longer meets. */
function isPreconditionFailure(error: unknown): boolean {
  return isConflict(error) && /Precondition failed: (UID|ResourceVersion)/.test((error as Error).message);
}

function versionOf(apiVersion: string): string {
  return apiVersion.slice(apiVersion.lastIndexOf("/") + 1);
}
