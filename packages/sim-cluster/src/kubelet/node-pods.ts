import type { KubeObject } from "@kubekit/generic-controlplane";
import { Informer, dropManagedFields, objectKey, type EventHandlers, type KubeClient } from "@kubekit/generic-controlplane/controllers";
import type { Pod } from "../resources/pods.js";
import { PODS } from "../refs.js";

/** What a kubelet reads of the pods bound to its node: an informer's cache and events. */
export interface NodePodSource {
  readonly cache: { get(key: string): KubeObject | undefined; list(): KubeObject[] };
  addEventHandler(handlers: EventHandlers): void;
  start(): void;
  waitForSync(): Promise<void>;
  stop(): Promise<void>;
}

/** A kubelet's own informer of the pods bound to its node (`spec.nodeName=<node>`), as upstream's. */
export function ownNodePods(client: KubeClient, nodeName: string): NodePodSource {
  return new Informer(client, { ...PODS, kind: "Pod" }, { fieldSelector: `spec.nodeName=${nodeName}`, transform: dropManagedFields });
}

const NO_PODS: ReadonlyMap<string, KubeObject> = new Map();
const nodeOf = (pod: KubeObject): string => (pod as Pod).spec?.nodeName ?? "";

/**
 * One pod informer for every simulated kubelet of a cluster, handing each node the events of the
 * pods bound to it. Each kubelet watching `spec.nodeName=<node>` is what upstream does, but a
 * thousand nodes in one process would cost the server a thousand watches, every pod event tested
 * against each of them: here one watch is split by node in O(1) per event.
 */
export class SharedNodePods {
  readonly #informer: Informer;
  /** Bound pods by node, then by key. */
  readonly #byNode = new Map<string, Map<string, KubeObject>>();
  readonly #views = new Map<string, NodePodView>();

  constructor(client: KubeClient) {
    // The kubelets never read a pod's managed fields: the cache holds the pods without them.
    this.#informer = new Informer(client, { ...PODS, kind: "Pod" }, { transform: dropManagedFields });
    this.#informer.addEventHandler({
      add: (pod, initialList) => {
        const node = nodeOf(pod);
        if (node === "") return;
        this.#bucket(node).set(objectKey(pod), pod);
        this.#views.get(node)?.deliverAdd(pod, initialList);
      },
      update: (old, pod) => {
        const node = nodeOf(pod);
        if (node === "") return;
        this.#bucket(node).set(objectKey(pod), pod);
        // Bound since the last event: for the node's kubelet it is new (it enters its selector).
        if (nodeOf(old) !== node) this.#views.get(node)?.deliverAdd(pod, false);
        else this.#views.get(node)?.deliverUpdate(old, pod);
      },
      delete: (pod, finalStateUnknown) => {
        const node = nodeOf(pod);
        if (node === "") return;
        const bucket = this.#byNode.get(node);
        bucket?.delete(objectKey(pod));
        if (bucket?.size === 0) this.#byNode.delete(node);
        this.#views.get(node)?.deliverDelete(pod, finalStateUnknown);
      },
    });
  }

  start(): void {
    this.#informer.start();
  }

  stop(): Promise<void> {
    return this.#informer.stop();
  }

  /** The pods of `nodeName`, for its kubelet: one view per running kubelet. */
  forNode(nodeName: string): NodePodSource {
    return new NodePodView(this, nodeName);
  }

  /** @internal */
  attach(view: NodePodView): void {
    this.#views.set(view.nodeName, view);
  }

  /** @internal */
  detach(view: NodePodView): void {
    if (this.#views.get(view.nodeName) === view) this.#views.delete(view.nodeName);
  }

  /** @internal */
  pods(nodeName: string): ReadonlyMap<string, KubeObject> {
    return this.#byNode.get(nodeName) ?? NO_PODS;
  }

  /** @internal */
  waitForSync(): Promise<void> {
    return this.#informer.waitForSync();
  }

  #bucket(node: string): Map<string, KubeObject> {
    let bucket = this.#byNode.get(node);
    if (bucket === undefined) this.#byNode.set(node, (bucket = new Map<string, KubeObject>()));
    return bucket;
  }
}

/** One node's share of a SharedNodePods: an informer of its bound pods, as the kubelet's own would be. */
class NodePodView implements NodePodSource {
  readonly #shared: SharedNodePods;
  readonly nodeName: string;
  readonly #handlers: EventHandlers[] = [];
  #attached = false;
  #synced: Promise<void> | undefined;
  readonly cache = {
    get: (key: string): KubeObject | undefined => this.#shared.pods(this.nodeName).get(key),
    list: (): KubeObject[] => [...this.#shared.pods(this.nodeName).values()],
  };

  constructor(shared: SharedNodePods, nodeName: string) {
    this.#shared = shared;
    this.nodeName = nodeName;
  }

  addEventHandler(handlers: EventHandlers): void {
    this.#handlers.push(handlers);
  }

  start(): void {
    if (this.#attached) return;
    this.#attached = true;
    this.#synced = this.#shared.waitForSync().then(() => {
      if (!this.#attached) return;
      this.#shared.attach(this);
      // What a fresh list would bring: every pod already bound to the node.
      for (const pod of this.cache.list()) this.deliverAdd(pod, true);
    });
  }

  /** Resolves once started and the pods already bound were handed to the handlers. */
  async waitForSync(): Promise<void> {
    await (this.#synced ?? this.#shared.waitForSync());
  }

  stop(): Promise<void> {
    this.#attached = false;
    this.#shared.detach(this);
    return Promise.resolve();
  }

  deliverAdd(pod: KubeObject, initialList: boolean): void {
    for (const handlers of this.#handlers) handlers.add?.(pod, initialList);
  }

  deliverUpdate(old: KubeObject, pod: KubeObject): void {
    for (const handlers of this.#handlers) handlers.update?.(old, pod);
  }

  deliverDelete(pod: KubeObject, finalStateUnknown: boolean): void {
    for (const handlers of this.#handlers) handlers.delete?.(pod, finalStateUnknown);
  }
}
