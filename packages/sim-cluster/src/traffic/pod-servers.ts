import type { Pod } from "../resources/pods.js";
import { echoListensOf, podHostname } from "./echo-ports.js";
import type { ResolveHost } from "./cluster-dns.js";
import { startEchoServer, type EchoServer } from "./echo-server.js";
import { isLoopback } from "./loopback.js";

type Log = (record: { msg: string; level?: "info" | "warn" | "error" } & Record<string, unknown>) => void;

interface Running {
  ip: string;
  node: string;
  hostname: string;
  servers: EchoServer[];
}

/**
 * The simulated containers' network side: every Running pod with a loopback IP answers on its
 * ports as agnhost does (see `echoListensOf`) until it is deleted or finishes. A terminating pod
 * keeps answering, as a container does through its grace period.
 */
export class PodServers {
  readonly #running = new Map<string, Running>();
  /** Per pod uid, the work in flight, so that a pod's starts and stops happen in order. */
  readonly #queue = new Map<string, Promise<void>>();
  readonly #log: Log | undefined;
  readonly #resolve: ResolveHost;
  /** Nodes removed from the cluster: their pods run nowhere. */
  readonly #goneNodes = new Set<string>();
  /** Addresses whose servers are still closing: a pod given the same IP waits for them. */
  readonly #closingIPs = new Map<string, Promise<void>>();
  #closed = false;

  /** `resolve` is the pods' DNS. */
  constructor(resolve: ResolveHost, log?: Log) {
    this.#resolve = resolve;
    this.#log = log;
  }

  /** Brings a pod's servers in line with the pod. */
  sync(pod: Pod): Promise<void> {
    const uid = pod.metadata?.uid ?? "";
    const ip = pod.status?.podIP;
    const wanted = pod.status?.phase === "Running" && ip !== undefined && isLoopback(ip) && !this.#goneNodes.has(pod.spec?.nodeName ?? "");
    return this.#enqueue(uid, async () => {
      const current = this.#running.get(uid);
      if (current !== undefined && (!wanted || current.ip !== ip)) await this.#stop(uid);
      if (!wanted || this.#running.has(uid) || this.#closed) return;
      // The kubelet hands a deleted pod's IP out again: a pod still listening there is gone.
      const previous = [...this.#running.entries()].find(([, r]) => r.ip === ip);
      if (previous !== undefined) await this.#stop(previous[0]);
      await this.#closingIPs.get(ip);
      const running: Running = { ip, node: pod.spec?.nodeName ?? "", hostname: podHostname(pod), servers: [] };
      this.#running.set(uid, running);
      for (const listen of echoListensOf(pod)) {
        try {
          running.servers.push(await startEchoServer(ip, listen, () => running.hostname, this.#resolve));
        } catch (error) {
          this.#log?.({
            level: "warn",
            msg: "pod server could not listen",
            pod: `${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""}`,
            address: `${ip}:${listen.port}/${listen.protocol}`,
            error: String(error),
          });
        }
      }
    });
  }

  /** A pod went away: its servers stop. */
  remove(pod: Pod): Promise<void> {
    const uid = pod.metadata?.uid ?? "";
    return this.#enqueue(uid, () => this.#stop(uid));
  }

  /** A node (back) in the cluster: its pods may run. */
  addNode(node: string): void {
    this.#goneNodes.delete(node);
  }

  /** A node went away: the servers of its pods stop with it. */
  async removeNode(node: string): Promise<void> {
    this.#goneNodes.add(node);
    await Promise.all(
      [...this.#running.entries()].filter(([, r]) => r.node === node).map(([uid]) => this.#enqueue(uid, () => this.#stop(uid))),
    );
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#queue.values()]);
    await Promise.all([...this.#running.keys()].map((uid) => this.#stop(uid)));
  }

  async #stop(uid: string): Promise<void> {
    const running = this.#running.get(uid);
    if (running === undefined) return;
    this.#running.delete(uid);
    const closing = Promise.all(running.servers.map((s) => s.close())).then(() => undefined);
    this.#closingIPs.set(running.ip, closing);
    await closing;
    if (this.#closingIPs.get(running.ip) === closing) this.#closingIPs.delete(running.ip);
  }

  #enqueue(uid: string, work: () => Promise<void>): Promise<void> {
    const next = (this.#queue.get(uid) ?? Promise.resolve()).then(work);
    this.#queue.set(uid, next);
    void next.finally(() => {
      if (this.#queue.get(uid) === next) this.#queue.delete(uid);
    });
    return next;
  }
}
