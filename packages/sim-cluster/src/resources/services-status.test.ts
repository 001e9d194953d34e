import { isControlPlaneError } from "@kubekit/generic-controlplane";
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

function services() {
  const allocators: ServiceAllocators = { clusterIPs: new ClusterIPAllocator("10.96.0.0/24"), nodePorts: new NodePortAllocator() };
  const storage = createMemoryStorage({ compactInterval: 0 });
  storages.push(storage);
  return { allocators, store: repairingServiceStore(createResourceStore(servicesResource(allocators), storage), allocators) };
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

const ingress = [{ ip: "192.0.2.10" }];
const withIngress = (s: Service): Service => ({ ...s, status: { loadBalancer: { ingress } } });

describe("services' status", () => {
  it("is written through /status (a load balancer's ingress stays) and cannot change the spec there", async () => {
    const { store } = services();
    await store.create("default", { metadata: { name: "lb" }, spec: { type: "LoadBalancer", ports: [{ port: 80 }] } });
    const written = (await store.guaranteedUpdate(
      "default",
      "lb",
      (s) => ({ ...withIngress(s), spec: { ...(s as Service).spec, sessionAffinity: "ClientIP" } }),
      { subresource: "status" },
    )) as Service;
    expect(written.status?.loadBalancer?.ingress).toEqual(ingress);
    expect(written.spec?.sessionAffinity).toBe("None");
    const stored = (await store.get("default", "lb")) as Service;
    expect(stored.status?.loadBalancer?.ingress).toEqual(ingress);
  });

  it("is kept by an update of the main resource, which cannot change it", async () => {
    const { store } = services();
    await store.create("default", { metadata: { name: "lb" }, spec: { type: "LoadBalancer", ports: [{ port: 80 }] } });
    await store.guaranteedUpdate("default", "lb", (s) => withIngress(s), { subresource: "status" });
    const updated = (await store.guaranteedUpdate("default", "lb", (s) => ({
      ...s,
      metadata: { ...s.metadata, labels: { a: "b" } },
      status: { loadBalancer: { ingress: [{ ip: "192.0.2.99" }] } },
    }))) as Service;
    expect(updated.metadata?.labels).toEqual({ a: "b" });
    expect(updated.status?.loadBalancer?.ingress).toEqual(ingress);
  });

  it("refuses an ingress that is not an IP address with upstream's message", async () => {
    const { store } = services();
    await store.create("default", { metadata: { name: "lb" }, spec: { type: "LoadBalancer", ports: [{ port: 80 }] } });
    expect(
      await refusal(
        store.guaranteedUpdate("default", "lb", (s) => ({ ...s, status: { loadBalancer: { ingress: [{ ip: "not-an-ip" }] } } }), {
          subresource: "status",
        }),
      ),
    ).toBe(
      'Service "lb" is invalid: status.loadBalancer.ingress[0].ip: Invalid value: "not-an-ip": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    );
  });
});

describe("services' type changes (dropTypeDependentFields)", () => {
  it("going from LoadBalancer to ClusterIP drops the node ports, externalTrafficPolicy, the health check port and the ingress", async () => {
    const { store, allocators } = services();
    const created = (await store.create("default", {
      metadata: { name: "lb" },
      spec: { type: "LoadBalancer", externalTrafficPolicy: "Local", ports: [{ port: 80 }] },
    })) as Service;
    const nodePort = created.spec!.ports![0]!.nodePort!;
    await store.guaranteedUpdate("default", "lb", (s) => withIngress(s), { subresource: "status" });
    const changed = (await store.guaranteedUpdate("default", "lb", (s) => ({
      ...s,
      spec: { ...(s as Service).spec, type: "ClusterIP" },
    }))) as Service;
    expect(changed.spec?.type).toBe("ClusterIP");
    expect(changed.spec?.ports?.[0]?.nodePort).toBeUndefined();
    expect(changed.spec?.externalTrafficPolicy).toBeUndefined();
    expect(changed.spec?.healthCheckNodePort).toBeUndefined();
    expect(changed.status?.loadBalancer).toEqual({});
    expect(changed.spec?.clusterIP).toBe(created.spec?.clusterIP);
    expect(allocators.nodePorts.isAllocated(nodePort)).toBe(false);
  });

  it("still refuses a node port the user sets on a ClusterIP service in the same write", async () => {
    const { store } = services();
    await store.create("default", { metadata: { name: "np" }, spec: { type: "NodePort", ports: [{ port: 80 }] } });
    expect(
      await refusal(
        store.guaranteedUpdate("default", "np", (s) => ({
          ...s,
          spec: { ...(s as Service).spec, type: "ClusterIP", ports: [{ port: 80, nodePort: 30999 }] },
        })),
      ),
    ).toBe("Service \"np\" is invalid: spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'");
  });

  it("going to ExternalName drops the cluster IP", async () => {
    const { store, allocators } = services();
    const created = (await store.create("default", { metadata: { name: "svc" }, spec: { ports: [{ port: 80 }] } })) as Service;
    const changed = (await store.guaranteedUpdate("default", "svc", (s) => ({
      ...s,
      spec: { ...(s as Service).spec, type: "ExternalName", externalName: "example.com" },
    }))) as Service;
    expect(changed.spec?.clusterIP).toBeUndefined();
    expect(changed.spec?.clusterIPs).toBeUndefined();
    expect(allocators.clusterIPs.isAllocated(created.spec!.clusterIP!)).toBe(false);
  });
});

describe("services' allocateLoadBalancerNodePorts", () => {
  it("defaults to true for a LoadBalancer; false allocates no node ports until it turns true", async () => {
    const { store } = services();
    const defaulted = (await store.create("default", {
      metadata: { name: "a" },
      spec: { type: "LoadBalancer", ports: [{ port: 80 }] },
    })) as Service;
    expect(defaulted.spec?.["allocateLoadBalancerNodePorts"]).toBe(true);
    expect(defaulted.spec?.ports?.[0]?.nodePort).toBeGreaterThanOrEqual(30000);

    const without = (await store.create("default", {
      metadata: { name: "b" },
      spec: { type: "LoadBalancer", allocateLoadBalancerNodePorts: false, ports: [{ port: 80 }] },
    })) as Service;
    expect(without.spec?.ports?.[0]?.nodePort).toBeUndefined();
    const turned = (await store.guaranteedUpdate("default", "b", (s) => ({
      ...s,
      spec: { ...(s as Service).spec, allocateLoadBalancerNodePorts: true },
    }))) as Service;
    expect(turned.spec?.ports?.[0]?.nodePort).toBeGreaterThanOrEqual(30000);

    const back = (await store.guaranteedUpdate("default", "a", (s) => ({
      ...s,
      spec: { ...(s as Service).spec, type: "ClusterIP" },
    }))) as Service;
    expect(back.spec?.["allocateLoadBalancerNodePorts"]).toBeUndefined();
  });

  it("is refused on a service that is no LoadBalancer, with upstream's message", async () => {
    const { store } = services();
    expect(
      await refusal(
        store.create("default", {
          metadata: { name: "np" },
          spec: { type: "NodePort", allocateLoadBalancerNodePorts: false, ports: [{ port: 80 }] },
        }),
      ),
    ).toBe("Service \"np\" is invalid: spec.allocateLoadBalancerNodePorts: Forbidden: may only be used when `type` is 'LoadBalancer'");
  });
});
