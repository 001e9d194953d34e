import { randomUUID } from "node:crypto";
import { isApiError, isConflict, isNotFound } from "@kubekit/client";
import type { ServiceRef } from "../driver/types.js";
import { fail } from "./assert.js";
import type { TestContext } from "./context.js";
import { poll } from "./poll.js";
import { DEPLOYMENTS, PODDISRUPTIONBUDGETS, PODS, SERVICES, type Pod, type Service } from "./resources.js";

/** The image upstream's jig runs (`netexec` answers /hostname, /echo, /clientip, UDP "echo"). */
export const AGNHOST_IMAGE = "registry.k8s.io/e2e-test-images/agnhost:2.53";

/** `service.kubernetes.io/load-balancer-cleanup`, the service controller's finalizer. */
export const LOAD_BALANCER_CLEANUP_FINALIZER = "service.kubernetes.io/load-balancer-cleanup";

const NODE_PORT_RANGE = { base: 30000, size: 2768 };

/** `cloudprovider.DefaultLoadBalancerName`: "a" + the UID without dashes, at most 32 characters. */
export function defaultLoadBalancerName(service: Service): string {
  return `a${(service.metadata.uid ?? "").replaceAll("-", "")}`.slice(0, 32);
}

export function serviceRef(service: Service): ServiceRef {
  return {
    namespace: service.metadata.namespace ?? "",
    name: service.metadata.name,
    uid: service.metadata.uid ?? "",
    loadBalancerName: defaultLoadBalancerName(service),
  };
}

/** `e2eservice.GetIngressPoint`: the ingress IP, else its hostname. */
export function ingressPoint(service: Service): string {
  const ingress = service.status?.loadBalancer?.ingress?.[0];
  return ingress?.ip || ingress?.hostname || "";
}

export type ServiceTweak = (service: Service) => void;

/**
 * Sets a Service's type and leaves out what only the old type allowed (NodePorts, the health
 * check NodePort, the external traffic policy, `allocateLoadBalancerNodePorts`), as kube-apiserver's
 * `dropTypeDependentFields` does on its own, so the update is valid on servers that do not.
 */
export function setServiceType(service: Service, type: NonNullable<Service["spec"]["type"]>): void {
  service.spec.type = type;
  const external = type === "NodePort" || type === "LoadBalancer";
  if (!external) {
    for (const port of service.spec.ports ?? []) delete port.nodePort;
    delete service.spec.externalTrafficPolicy;
  }
  if (type !== "LoadBalancer") {
    delete service.spec.healthCheckNodePort;
    delete service.spec.allocateLoadBalancerNodePorts;
  }
}

/**
 * A port of upstream's `e2eservice.TestJig`: one Service named `name` in the test's namespace,
 * selecting pods labelled `testid: <name>-<uuid>`, and the waits and sanity checks the tests use.
 * The backends are a Deployment of agnhost netexec (upstream uses a ReplicationController).
 */
export class TestJig {
  readonly id: string;
  readonly labels: Record<string, string>;

  constructor(
    private readonly ctx: TestContext,
    readonly name: string,
  ) {
    // A label value holds 63 characters: the uuid's 36 and a dash leave 26 for the name.
    this.id = `${name.slice(0, 26).replace(/-+$/, "")}-${randomUUID()}`;
    this.labels = { testid: this.id };
  }

  /** `newServiceTemplate`: a ClusterIP service on port 80 → 80 selecting the jig's pods. */
  newServiceTemplate(protocol: "TCP" | "UDP", port = 80): Service {
    return {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: this.name, namespace: this.ctx.namespace, labels: { ...this.labels } },
      spec: { selector: { ...this.labels }, ports: [{ protocol, port, targetPort: 80 }] },
    };
  }

  async createTCPService(tweak?: ServiceTweak): Promise<Service> {
    return this.#create(this.newServiceTemplate("TCP"), tweak);
  }

  async createUDPService(tweak?: ServiceTweak): Promise<Service> {
    return this.#create(this.newServiceTemplate("UDP"), tweak);
  }

  /** `CreateExternalNameService`: type ExternalName pointing at foo.example.com, no selector. */
  async createExternalNameService(tweak?: ServiceTweak): Promise<Service> {
    const service = this.newServiceTemplate("TCP");
    delete service.spec.selector;
    service.spec.type = "ExternalName";
    service.spec.externalName = "foo.example.com";
    return this.#create(service, tweak);
  }

  /** `CreateLoadBalancerService`: type LoadBalancer with `SessionAffinity=None`, waiting for its ingress. */
  async createLoadBalancerService(timeoutMs: number, tweak?: ServiceTweak): Promise<Service> {
    const service = this.newServiceTemplate("TCP");
    service.spec.type = "LoadBalancer";
    service.spec.sessionAffinity = "None";
    await this.#create(service, tweak);
    return this.waitForLoadBalancer(timeoutMs);
  }

  async #create(service: Service, tweak?: ServiceTweak): Promise<Service> {
    tweak?.(service);
    const created = await this.ctx.client.create<Service>(SERVICES, this.ctx.namespace, service);
    this.#registerCleanup(created);
    return created;
  }

  #cleanupRegistered = false;
  /** After the test: let the driver sweep what the cloud still holds for the Service (`CleanupServiceResources`). */
  #registerCleanup(service: Service): void {
    if (this.#cleanupRegistered || !this.ctx.driver.cleanupServiceResources) return;
    this.#cleanupRegistered = true;
    const ref = serviceRef(service);
    this.ctx.defer(() => this.ctx.driver.cleanupServiceResources!(ref));
  }

  async getService(): Promise<Service> {
    return this.ctx.client.get<Service>(SERVICES, this.ctx.namespace, this.name);
  }

  /** `UpdateService`: read, change, write; retried 3 times on a Conflict or ServerTimeout, as upstream. */
  async updateService(tweak: ServiceTweak): Promise<Service> {
    let lastError: unknown;
    for (let i = 0; i < 3; i++) {
      const service = await this.getService();
      tweak(service);
      try {
        const updated = await this.ctx.client.update<Service>(SERVICES, this.ctx.namespace, service);
        return this.sanityCheckService(updated, updated.spec.type ?? "ClusterIP");
      } catch (error) {
        if (!isConflict(error) && !isApiError(error, "ServerTimeout")) throw error;
        lastError = error;
      }
    }
    throw new Error(`too many retries updating Service ${this.ctx.namespace}/${this.name}: ${(lastError as Error).message}`);
  }

  /** `ChangeServiceNodePort`: moves port 0 to the next free NodePort after `initial`, wrapping around the range. */
  async changeServiceNodePort(initial: number): Promise<Service> {
    let lastError: unknown;
    for (let i = 1; i < NODE_PORT_RANGE.size; i++) {
      const candidate = ((initial + i - NODE_PORT_RANGE.base) % NODE_PORT_RANGE.size) + NODE_PORT_RANGE.base;
      try {
        return await this.updateService((service) => {
          service.spec.ports![0]!.nodePort = candidate;
        });
      } catch (error) {
        if (!isApiError(error) || error.code !== 422) throw error;
        lastError = error;
      }
    }
    throw new Error(`could not find a free NodePort after ${initial}: ${(lastError as Error | undefined)?.message}`);
  }

  /** `sanityCheckService`: type, ClusterIP and NodePorts are what the type implies. */
  sanityCheckService(service: Service, type: NonNullable<Service["spec"]["type"]>): Service {
    if ((service.spec.type ?? "ClusterIP") !== type) fail(`unexpected Spec.Type (${service.spec.type}) for service, expected ${type}`);
    if (type !== "ExternalName") {
      if (!service.spec.clusterIP) fail("didn't get ClusterIP for non-ExternalName service");
    } else if (service.spec.clusterIP) {
      fail(`unexpected Spec.ClusterIP (${service.spec.clusterIP}) for ExternalName service, expected empty`);
    }
    const expectNodePorts = type === "NodePort" || (type === "LoadBalancer" && service.spec.allocateLoadBalancerNodePorts !== false);
    for (const [i, port] of (service.spec.ports ?? []).entries()) {
      const hasNodePort = (port.nodePort ?? 0) !== 0;
      if (hasNodePort !== expectNodePorts) {
        fail(
          hasNodePort
            ? `unexpected Spec.Ports[${i}].NodePort (${port.nodePort}) for service`
            : `didn't get a NodePort for Spec.Ports[${i}] of a ${type} service`,
        );
      }
      if (hasNodePort && (port.nodePort! < NODE_PORT_RANGE.base || port.nodePort! >= NODE_PORT_RANGE.base + NODE_PORT_RANGE.size)) {
        fail(`out-of-range nodePort (${port.nodePort}) for service`);
      }
    }
    return service;
  }

  /** `WaitForLoadBalancer`: until `status.loadBalancer.ingress` is set, then the sanity check. */
  async waitForLoadBalancer(timeoutMs: number): Promise<Service> {
    const service = await poll(
      `service ${this.ctx.namespace}/${this.name} to have a load balancer`,
      { timeoutMs, signal: this.ctx.signal },
      async () => {
        const current = await this.getService();
        return (current.status?.loadBalancer?.ingress?.length ?? 0) > 0 ? current : undefined;
      },
    );
    return this.sanityCheckService(service, "LoadBalancer");
  }

  /**
   * `WaitForLoadBalancerDestroy`: until the Service has no ingress; and, where the driver can say,
   * until the cloud has no load balancer for it either (a leaked LB fails here, not later).
   */
  async waitForLoadBalancerDestroy(timeoutMs: number): Promise<Service> {
    const service = await poll(
      `service ${this.ctx.namespace}/${this.name} to have no load balancer`,
      { timeoutMs, signal: this.ctx.signal },
      async () => {
        const current = await this.getService();
        return (current.status?.loadBalancer?.ingress?.length ?? 0) === 0 ? current : undefined;
      },
    );
    await this.expectNoCloudLoadBalancer(service, timeoutMs);
    return service;
  }

  /** Where the driver can say: until the cloud holds no load balancer for the Service (a leak fails here). */
  async expectNoCloudLoadBalancer(service: Service, timeoutMs: number): Promise<void> {
    const driver = this.ctx.driver;
    if (!driver.getLoadBalancer) return;
    const ref = serviceRef(service);
    try {
      await poll(
        `the cloud load balancer ${ref.loadBalancerName} of ${ref.namespace}/${ref.name} to be deleted`,
        { timeoutMs, signal: this.ctx.signal },
        async (note) => {
          const lb = await driver.getLoadBalancer!(ref);
          if (lb === undefined) return true;
          note(`it still exists with ingress ${JSON.stringify(lb.ingress)}`);
          return undefined;
        },
      );
    } catch (error) {
      fail(`load balancer of service ${ref.namespace}/${ref.name} was not deleted in the cloud: ${(error as Error).message}`);
    }
  }

  /** `ChangeServiceType`: sets the type and clears the first NodePort; waits for the LB to go if there was one. */
  async changeServiceType(type: NonNullable<Service["spec"]["type"]>, timeoutMs: number): Promise<void> {
    let hadIngress = false;
    await this.updateService((s) => {
      hadIngress = ingressPoint(s) !== "";
      setServiceType(s, type);
      if (s.spec.ports?.[0]) delete s.spec.ports[0].nodePort;
    });
    if (hadIngress) await this.waitForLoadBalancerDestroy(timeoutMs);
  }

  /** `WaitForNewIngressIP`: until the ingress differs from `existing`. */
  async waitForNewIngressIP(existing: string, timeoutMs: number): Promise<Service> {
    return poll(
      `service ${this.ctx.namespace}/${this.name} to get an ingress other than ${existing}`,
      { timeoutMs, signal: this.ctx.signal },
      async () => {
        const current = await this.getService();
        const point = ingressPoint(current);
        return point !== "" && point !== existing ? current : undefined;
      },
    );
  }

  /** The pod template of the backends: agnhost netexec on 80 TCP and UDP, ready when /hostname answers. */
  podTemplate(): Record<string, unknown> {
    return {
      metadata: { labels: { ...this.labels } },
      spec: {
        terminationGracePeriodSeconds: 30,
        containers: [
          {
            name: "netexec",
            image: AGNHOST_IMAGE,
            args: ["netexec", "--http-port=80", "--udp-port=80"],
            ports: [
              { containerPort: 80, protocol: "TCP" },
              { containerPort: 80, protocol: "UDP" },
            ],
            readinessProbe: { periodSeconds: 3, httpGet: { path: "/hostname", port: 80 } },
          },
        ],
      },
    };
  }

  /** `Run`: the backends, one replica, waiting until it is Running and Ready. */
  async run(tweak?: (deployment: Record<string, unknown> & { spec: Record<string, unknown> }) => void): Promise<void> {
    const deployment = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: this.name, namespace: this.ctx.namespace, labels: { ...this.labels } },
      spec: { replicas: 1, selector: { matchLabels: { ...this.labels } }, template: this.podTemplate() },
    };
    tweak?.(deployment);
    await this.ctx.client.create(DEPLOYMENTS, this.ctx.namespace, deployment);
    await this.waitForReadyPods(Number(deployment.spec.replicas));
  }

  /** `AddDeploymentAntiAffinity`: two replicas, never two on one node. */
  readonly addDeploymentAntiAffinity = (deployment: Record<string, unknown> & { spec: Record<string, unknown> }): void => {
    deployment.spec.replicas = 2;
    const template = deployment.spec.template as { spec: Record<string, unknown> };
    template.spec.affinity = {
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          { labelSelector: { matchLabels: { ...this.labels } }, topologyKey: "kubernetes.io/hostname" },
        ],
      },
    };
  };

  /**
   * `CreatePDB`: a PodDisruptionBudget over the backends with `minAvailable` one less than their
   * `replicas`, then waits until it allows a disruption (`waitForPdbReady`).
   */
  async createPDB(replicas: number): Promise<void> {
    await this.ctx.client.create(PODDISRUPTIONBUDGETS, this.ctx.namespace, {
      apiVersion: "policy/v1",
      kind: "PodDisruptionBudget",
      metadata: { name: this.name, namespace: this.ctx.namespace, labels: { ...this.labels } },
      spec: { minAvailable: replicas - 1, selector: { matchLabels: { ...this.labels } } },
    });
    await poll(
      `PodDisruptionBudget ${this.ctx.namespace}/${this.name} to allow a disruption`,
      { timeoutMs: this.ctx.timeouts.podStart, signal: this.ctx.signal },
      async (note) => {
        const pdb = await this.ctx.client.get<{ status?: { disruptionsAllowed?: number } }>(
          PODDISRUPTIONBUDGETS,
          this.ctx.namespace,
          this.name,
        );
        note(`disruptionsAllowed ${pdb.status?.disruptionsAllowed ?? 0}`);
        return (pdb.status?.disruptionsAllowed ?? 0) > 0 ? true : undefined;
      },
    );
  }

  /** `Scale`: sets the backends' replicas and waits for exactly that many ready pods. */
  async scale(replicas: number): Promise<void> {
    await this.ctx.client.patch(DEPLOYMENTS, this.ctx.namespace, this.name, { spec: { replicas } });
    await this.waitForReadyPods(replicas);
  }

  async pods(): Promise<Pod[]> {
    const selector = Object.entries(this.labels)
      .map(([k, v]) => `${k}=${v}`)
      .join(",");
    return (await this.ctx.client.list<Pod>(PODS, this.ctx.namespace, { labelSelector: selector })).items;
  }

  async waitForReadyPods(count: number): Promise<Pod[]> {
    return poll(`${count} ready pods of ${this.name}`, { timeoutMs: this.ctx.timeouts.podStart, signal: this.ctx.signal }, async (note) => {
      const pods = (await this.pods()).filter((pod) => pod.metadata.deletionTimestamp === undefined);
      const ready = pods.filter(
        (pod) => pod.status?.phase === "Running" && pod.status.conditions?.some((c) => c.type === "Ready" && c.status === "True"),
      );
      note(`${ready.length} ready of ${pods.length}`);
      return ready.length === count && pods.length === count ? ready : undefined;
    });
  }

  /** Deletes the backends (`DeleteRCAndWaitForGC`): the Deployment, then waits until no pod is left. */
  async deleteBackends(): Promise<void> {
    await this.ctx.client.delete(DEPLOYMENTS, this.ctx.namespace, this.name, { propagationPolicy: "Foreground" });
    await poll(`the pods of ${this.name} to be deleted`, { timeoutMs: this.ctx.timeouts.podStart, signal: this.ctx.signal }, async () =>
      (await this.pods()).length === 0 ? true : undefined,
    );
    await poll(`deployment ${this.name} to be deleted`, { timeoutMs: this.ctx.timeouts.podStart, signal: this.ctx.signal }, async () => {
      try {
        await this.ctx.client.get(DEPLOYMENTS, this.ctx.namespace, this.name);
        return undefined;
      } catch (error) {
        if (isNotFound(error)) return true;
        throw error;
      }
    });
  }

  /** `GetEndpointNodeNames`: the nodes the ready backends run on. */
  async endpointNodeNames(): Promise<Set<string>> {
    const pods = await this.waitForReadyPods((await this.pods()).filter((pod) => pod.metadata.deletionTimestamp === undefined).length);
    return new Set(pods.map((pod) => pod.spec?.nodeName ?? ""));
  }
}
