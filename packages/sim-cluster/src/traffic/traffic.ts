import { Informer, type KubeClient } from "@kubekit/generic-controlplane/controllers";
import { ENDPOINT_SLICES, LABEL_SERVICE_NAME, type EndpointSlice } from "../resources/endpoint-slices.js";
import { PODS, SERVICES } from "../refs.js";
import { clusterDns } from "./cluster-dns.js";
import { PodServers } from "./pod-servers.js";
import { ServiceProxy, type ProxyNode } from "./proxy.js";

type Log = (record: { msg: string; level?: "info" | "warn" | "error" } & Record<string, unknown>) => void;

/**
 * Traffic mode's data plane: the pods' echo servers and the kube-proxy stand-in, both driven by
 * informers on pods, services and EndpointSlices.
 */
export class TrafficPlane {
  readonly #pods: Informer;
  readonly #services: Informer;
  readonly #slices: Informer;
  readonly #podServers: PodServers;
  readonly #proxy: ServiceProxy;
  readonly #client: KubeClient;

  /** `client` is the plane's own: `close()` closes it. */
  constructor(client: KubeClient, log?: Log) {
    this.#client = client;
    this.#pods = new Informer(client, { ...PODS, kind: "Pod" });
    this.#services = new Informer(client, { ...SERVICES, kind: "Service" });
    this.#slices = new Informer(client, { ...ENDPOINT_SLICES, kind: "EndpointSlice" });
    this.#podServers = new PodServers(
      clusterDns(() => this.#services.cache.list()),
      log,
    );
    this.#proxy = new ServiceProxy(
      () => this.#services.cache.list(),
      (namespace, name) =>
        (this.#slices.cache.list() as EndpointSlice[]).filter(
          (s) => s.metadata?.namespace === namespace && s.metadata?.labels?.[LABEL_SERVICE_NAME] === name,
        ),
      log,
    );
  }

  async start(): Promise<void> {
    const sync = () => void this.#proxy.sync();
    this.#pods.addEventHandler({
      add: (pod) => void this.#podServers.sync(pod),
      update: (_old, pod) => void this.#podServers.sync(pod),
      delete: (pod) => void this.#podServers.remove(pod),
    });
    for (const informer of [this.#services, this.#slices]) informer.addEventHandler({ add: sync, update: sync, delete: sync });
    for (const informer of [this.#pods, this.#services, this.#slices]) informer.start();
    await Promise.all([this.#pods.waitForSync(), this.#services.waitForSync(), this.#slices.waitForSync()]);
  }

  /** A node's kube-proxy starts: its NodePorts are bound on `node.address`. */
  addNode(name: string, node: ProxyNode): Promise<void> {
    this.#podServers.addNode(name);
    return this.#proxy.addNode(name, node);
  }

  /** A node goes: its NodePorts and its pods' servers close. */
  async removeNode(name: string): Promise<void> {
    await Promise.all([this.#proxy.removeNode(name), this.#podServers.removeNode(name)]);
  }

  async close(): Promise<void> {
    await Promise.all([this.#pods.stop(), this.#services.stop(), this.#slices.stop()]);
    await Promise.all([this.#proxy.close(), this.#podServers.close()]);
    this.#client.close();
  }
}
