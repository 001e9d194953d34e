import { Informer, KubeClient } from "@kubekit/generic-controlplane/controllers";
import { NODES } from "../refs.js";
import { SimulatedKubelet, type KubeletOptions, type SimNodeSpec } from "./kubelet.js";
import { SharedNodePods } from "./node-pods.js";

/** What a cluster asks of wherever its simulated kubelets run: this thread or worker threads. */
export interface KubeletHost {
  /** Starts a new node's kubelet as `system:node:<name>` (`token`); resolves once the node reports Ready. */
  add(spec: SimNodeSpec, version: string, token: string): Promise<void>;
  /** Starts a stopped node's kubelet again at `version`, with the spec it last had (its capacity changes included). */
  start(name: string, version: string, token: string): Promise<void>;
  stop(name: string): Promise<void>;
  /** Stops the node's kubelet if it runs, and forgets the node. */
  remove(name: string): Promise<void>;
  reboot(name: string): Promise<void>;
  setCapacity(name: string, capacity: Readonly<Record<string, string>>): Promise<void>;
  /** Stops every running kubelet and the watches they share. */
  close(): Promise<void>;
}

/** What every kubelet of a host is given, but for its version and the Node cache the host provides. */
export type HostedKubeletOptions = Omit<KubeletOptions, "kubeletVersion" | "cachedNode">;

export interface LocalKubeletsOptions {
  /** The API server's URL. */
  server: string;
  /** The token of the watches the kubelets share (a `system:nodes` identity). */
  sharedToken: string;
  kubelet: HostedKubeletOptions;
}

/**
 * The simulated kubelets of one thread. They share one pod watch split by node (see
 * SharedNodePods) and read their Nodes between reports from one node watch rather than a GET
 * each per renewal; each talks to the server with its own client and node identity.
 */
export class LocalKubelets implements KubeletHost {
  readonly #server: string;
  readonly #options: HostedKubeletOptions;
  readonly #nodes: Informer;
  readonly #nodePods: SharedNodePods;
  readonly #kubelets = new Map<string, { kubelet: SimulatedKubelet; running: boolean }>();

  constructor(options: LocalKubeletsOptions) {
    this.#server = options.server;
    this.#options = options.kubelet;
    const sharedClient = () => new KubeClient({ server: options.server, userAgent: "sim-cluster-kubelets", token: options.sharedToken });
    this.#nodes = new Informer(sharedClient(), { ...NODES, kind: "Node" });
    this.#nodes.start();
    this.#nodePods = new SharedNodePods(sharedClient());
    this.#nodePods.start();
  }

  async add(spec: SimNodeSpec, version: string, token: string): Promise<void> {
    if (this.#kubelets.has(spec.name)) throw new Error(`node ${spec.name} is already running`);
    const kubelet = this.#newKubelet(spec, version, token);
    this.#kubelets.set(spec.name, { kubelet, running: true });
    try {
      await kubelet.start();
    } catch (error) {
      this.#kubelets.delete(spec.name);
      await kubelet.stop();
      throw error;
    }
  }

  async start(name: string, version: string, token: string): Promise<void> {
    const entry = this.#entryOf(name);
    if (entry.running) throw new Error(`node ${name} is running already`);
    entry.kubelet = this.#newKubelet(entry.kubelet.spec, version, token);
    entry.running = true;
    try {
      await entry.kubelet.start();
    } catch (error) {
      entry.running = false;
      await entry.kubelet.stop();
      throw error;
    }
  }

  async stop(name: string): Promise<void> {
    const entry = this.#entryOf(name);
    if (!entry.running) throw new Error(`node ${name} is stopped already`);
    entry.running = false;
    await entry.kubelet.stop();
  }

  async remove(name: string): Promise<void> {
    const entry = this.#entryOf(name);
    this.#kubelets.delete(name);
    if (entry.running) await entry.kubelet.stop();
  }

  reboot(name: string): Promise<void> {
    return this.#runningKubelet(name).reboot();
  }

  setCapacity(name: string, capacity: Readonly<Record<string, string>>): Promise<void> {
    return this.#runningKubelet(name).setCapacity(capacity);
  }

  async close(): Promise<void> {
    await Promise.all([...this.#kubelets.values()].filter((k) => k.running).map(({ kubelet }) => kubelet.stop()));
    await this.#nodePods.stop();
    await this.#nodes.stop();
  }

  #newKubelet(spec: SimNodeSpec, version: string, token: string): SimulatedKubelet {
    return new SimulatedKubelet(
      new KubeClient({ server: this.#server, userAgent: `kubelet/${version} (${spec.name})`, token }),
      spec,
      { ...this.#options, kubeletVersion: version, cachedNode: (node) => this.#nodes.cache.get(node) },
      this.#nodePods.forNode(spec.name),
    );
  }

  #entryOf(name: string) {
    const entry = this.#kubelets.get(name);
    if (entry === undefined) throw new Error(`no node ${name} in this cluster`);
    return entry;
  }

  #runningKubelet(name: string): SimulatedKubelet {
    const entry = this.#entryOf(name);
    if (!entry.running) throw new Error(`node ${name} is stopped`);
    return entry.kubelet;
  }
}
