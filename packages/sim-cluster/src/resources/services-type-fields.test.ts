import { isControlPlaneError, type KubeObject } from "@kubekit/generic-controlplane";
import { createResourceStore } from "@kubekit/generic-controlplane/registry";
import { createMemoryStorage } from "@kubekit/generic-controlplane/storage";
import { afterEach, describe, expect, it } from "vitest";
import { ClusterIPAllocator } from "../allocators/cluster-ip.js";
import { NodePortAllocator } from "../allocators/node-port.js";
import { repairingServiceStore } from "../services-store.js";
import { servicesResource, type Service, type ServiceAllocators } from "./services.js";

const storages: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(storages.splice(0).map((s) => s.close()));
});

function services(allocators: ServiceAllocators) {
  const storage = createMemoryStorage({ compactInterval: 0 });
  storages.push(storage);
  return repairingServiceStore(createResourceStore(servicesResource(allocators), storage), allocators);
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isControlPlaneError(error)) return error.message;
    throw error;
  }
  throw new Error("expected the write to be refused");
}

const lb = (name: string, extra: Record<string, unknown> = {}) => ({
  metadata: { name },
  spec: { type: "LoadBalancer", externalTrafficPolicy: "Local", ports: [{ port: 80 }], ...extra },
});

describe("services' healthCheckNodePort", () => {
  it("is allocated for a LoadBalancer with externalTrafficPolicy Local, kept on update and freed when no longer needed", async () => {
    const allocators: ServiceAllocators = { clusterIPs: new ClusterIPAllocator("10.96.0.0/24"), nodePorts: new NodePortAllocator() };
    const store = services(allocators);
    const created = (await store.create("default", lb("web"))) as Service & KubeObject;
    const health = created.spec!.healthCheckNodePort!;
    expect(health).toBeGreaterThanOrEqual(30000);
    expect(health).not.toBe(created.spec!.ports![0]!.nodePort);
    expect(allocators.nodePorts.isAllocated(health)).toBe(true);

    const relabelled = (await store.guaranteedUpdate("default", "web", (s) => ({
      ...s,
      metadata: { ...s.metadata, labels: { a: "b" } },
    }))) as Service;
    expect(relabelled.spec!.healthCheckNodePort).toBe(health);

    const cluster = (await store.guaranteedUpdate("default", "web", (s) => ({
      ...s,
      spec: { ...(s as Service).spec, externalTrafficPolicy: "Cluster" },
    }))) as Service;
    expect(cluster.spec!.healthCheckNodePort).toBeUndefined();
    expect(allocators.nodePorts.isAllocated(health)).toBe(false);
  });

  it("takes the port asked for, and refuses a taken one or one on a service that needs none, with upstream's messages", async () => {
    const allocators: ServiceAllocators = { clusterIPs: new ClusterIPAllocator("10.96.0.0/24"), nodePorts: new NodePortAllocator() };
    const store = services(allocators);
    const created = (await store.create("default", lb("a", { healthCheckNodePort: 31000 }))) as Service;
    expect(created.spec!.healthCheckNodePort).toBe(31000);
    expect(await refusal(store.create("default", lb("b", { healthCheckNodePort: 31000 })))).toBe(
      'Service "b" is invalid: spec.healthCheckNodePort: Invalid value: 31000: failed to allocate requested HealthCheck NodePort 31000: provided port is already allocated',
    );
    expect(
      await refusal(
        store.create("default", { metadata: { name: "c" }, spec: { type: "NodePort", ports: [{ port: 80 }], healthCheckNodePort: 31001 } }),
      ),
    ).toBe(
      "Service \"c\" is invalid: spec.healthCheckNodePort: Invalid value: 31001: may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
    );
  });
});

describe("services' type-dependent fields", () => {
  const fresh = () => {
    const allocators: ServiceAllocators = { clusterIPs: new ClusterIPAllocator("10.96.0.0/24"), nodePorts: new NodePortAllocator() };
    return { allocators, store: services(allocators) };
  };

  it("gives a LoadBalancer with allocateLoadBalancerNodePorts false no NodePort, and one once it turns true", async () => {
    const { allocators, store } = fresh();
    const created = (await store.create("default", {
      metadata: { name: "lb" },
      spec: { type: "LoadBalancer", allocateLoadBalancerNodePorts: false, ports: [{ port: 80 }] },
    })) as Service;
    expect(created.spec!.ports![0]!.nodePort).toBeUndefined();
    expect(allocators.nodePorts.used).toBe(0);
    const defaulted = (await store.create("default", {
      metadata: { name: "lb2" },
      spec: { type: "LoadBalancer", ports: [{ port: 80 }] },
    })) as Service;
    expect(defaulted.spec!["allocateLoadBalancerNodePorts"]).toBe(true);
    const turned = (await store.guaranteedUpdate("default", "lb", (s) => ({
      ...s,
      spec: { ...(s as Service).spec, allocateLoadBalancerNodePorts: true },
    }))) as Service;
    expect(turned.spec!.ports![0]!.nodePort).toBeGreaterThanOrEqual(30000);
    expect(
      await refusal(
        store.create("default", { metadata: { name: "c" }, spec: { allocateLoadBalancerNodePorts: true, ports: [{ port: 80 }] } }),
      ),
    ).toBe("Service \"c\" is invalid: spec.allocateLoadBalancerNodePorts: Forbidden: may only be used when `type` is 'LoadBalancer'");
  });

  it("drops NodePorts, the traffic policy, the health check port and allocateLoadBalancerNodePorts when a LoadBalancer becomes a ClusterIP service", async () => {
    const { allocators, store } = fresh();
    const created = (await store.create("default", lb("web"))) as Service;
    const nodePort = created.spec!.ports![0]!.nodePort!;
    // What `kubectl patch svc web -p '{"spec":{"type":"ClusterIP"}}'` sends after merging: everything else as it was.
    const changed = (await store.guaranteedUpdate("default", "web", (s) => ({
      ...s,
      spec: { ...(s as Service).spec, type: "ClusterIP" },
    }))) as Service;
    expect(changed.spec!.type).toBe("ClusterIP");
    expect(changed.spec!.ports![0]!.nodePort).toBeUndefined();
    expect(changed.spec!.externalTrafficPolicy).toBeUndefined();
    expect(changed.spec!.healthCheckNodePort).toBeUndefined();
    expect(changed.spec!["allocateLoadBalancerNodePorts"]).toBeUndefined();
    expect(changed.spec!.clusterIP).toBe(created.spec!.clusterIP);
    expect(allocators.nodePorts.isAllocated(nodePort)).toBe(false);
    expect(allocators.nodePorts.used).toBe(0);
  });
});
