import { isControlPlaneError, type KubeObject } from "@kubekit/generic-controlplane";
import { createResourceStore, toTable, type ResourceDefinition, type ResourceStore } from "@kubekit/generic-controlplane/registry";
import { createMemoryStorage } from "@kubekit/generic-controlplane/storage";
import { afterEach, describe, expect, it } from "vitest";
import { ClusterIPAllocator } from "../allocators/cluster-ip.js";
import { NodePortAllocator } from "../allocators/node-port.js";
import {
  deploymentsResource,
  nodesResource,
  podsResource,
  priorityClassesResource,
  replicaSetsResource,
  servicesResource,
} from "./index.js";
import type { ServiceAllocators } from "./services.js";

const storages: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(storages.splice(0).map((s) => s.close()));
});

function storeFor(definition: ResourceDefinition): ResourceStore {
  const storage = createMemoryStorage({ compactInterval: 0 });
  storages.push(storage);
  return createResourceStore(definition, storage);
}

async function rejection(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (isControlPlaneError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("expected the write to be refused");
}

const template = (labels: Record<string, string>, containers: unknown[] = [{ name: "web", image: "nginx" }]) => ({
  metadata: { labels },
  spec: { containers },
});

describe("pods", () => {
  it("defaults the spec and starts Pending with a QoS class", async () => {
    const pods = storeFor(podsResource);
    const pod = (await pods.create("default", {
      metadata: { name: "p" },
      spec: { containers: [{ name: "c", image: "x", resources: { limits: { cpu: "1", memory: "1Gi" } } }] },
    })) as KubeObject & {
      spec: {
        restartPolicy: string;
        schedulerName: string;
        containers: Array<{ imagePullPolicy: string; resources: { requests: Record<string, string> } }>;
      };
      status: { phase: string; qosClass: string };
    };
    expect(pod.spec.restartPolicy).toBe("Always");
    expect(pod.spec.schedulerName).toBe("default-scheduler");
    expect(pod.spec.containers[0]!.imagePullPolicy).toBe("Always");
    expect(pod.spec.containers[0]!.resources.requests).toEqual({ cpu: "1", memory: "1Gi" });
    expect(pod.status).toEqual({ phase: "Pending", qosClass: "Guaranteed" });
  });

  it("requires containers, names and images, and checks quantities, with upstream's messages", async () => {
    const pods = storeFor(podsResource);
    expect(await rejection(pods.create("default", { metadata: { name: "p" }, spec: {} }))).toEqual({
      code: "Invalid",
      message: 'Pod "p" is invalid: spec.containers: Required value',
    });
    const bad = await rejection(
      pods.create("default", {
        metadata: { name: "p" },
        spec: {
          containers: [
            { name: "Web", image: "x" },
            { name: "b" },
            { name: "b", image: "y", resources: { requests: { cpu: "2" }, limits: { cpu: "1" } } },
          ],
        },
      }),
    );
    expect(bad.message).toContain('spec.containers[0].name: Invalid value: "Web": a lowercase RFC 1123 label must consist of');
    expect(bad.message).toContain("spec.containers[1].image: Required value");
    expect(bad.message).toContain('spec.containers[2].name: Duplicate value: "b"');
    expect(bad.message).toContain(
      'spec.containers[2].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1',
    );
  });

  it("keeps the spec but for images once created", async () => {
    const pods = storeFor(podsResource);
    await pods.create("default", { metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "x" }] } });
    await pods.guaranteedUpdate("default", "p", (pod) => {
      (pod["spec"] as { containers: Array<{ image: string }> }).containers[0]!.image = "y";
      return pod;
    });
    const refused = await rejection(
      pods.guaranteedUpdate("default", "p", (pod) => {
        (pod["spec"] as { nodeSelector?: Record<string, string> }).nodeSelector = { a: "b" };
        return pod;
      }),
    );
    expect(refused.message).toContain("spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`");
  });

  it("lets activeDeadlineSeconds be set or shortened, never lengthened or unset (ValidatePodUpdate)", async () => {
    const pods = storeFor(podsResource);
    await pods.create("default", { metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "x" }] } });
    const setDeadline = (value: number | undefined) =>
      pods.guaranteedUpdate("default", "p", (pod) => {
        const spec = pod["spec"] as { activeDeadlineSeconds?: number };
        if (value === undefined) delete spec.activeDeadlineSeconds;
        else spec.activeDeadlineSeconds = value;
        return pod;
      });
    await setDeadline(30);
    await setDeadline(5);
    expect((await rejection(setDeadline(10))).message).toContain(
      "spec.activeDeadlineSeconds: Invalid value: 10: must be less than or equal to previous value",
    );
    expect((await rejection(setDeadline(undefined))).message).toContain(
      'spec.activeDeadlineSeconds: Invalid value: "null": must not update from a positive integer to nil value',
    );
  });
});

describe("deployments and replicasets", () => {
  it("defaults the strategy and requires a selector that matches the template", async () => {
    const deployments = storeFor(deploymentsResource);
    const created = (await deployments.create("default", {
      metadata: { name: "web" },
      spec: { selector: { matchLabels: { app: "web" } }, template: template({ app: "web" }) },
    })) as KubeObject & {
      spec: Record<string, unknown>;
    };
    expect(created.spec["replicas"]).toBe(1);
    expect(created.spec["strategy"]).toEqual({ type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" } });
    expect(created.metadata?.generation).toBe(1);

    const mismatch = await rejection(
      deployments.create("default", {
        metadata: { name: "x" },
        spec: { selector: { matchLabels: { app: "a" } }, template: template({ app: "b" }) },
      }),
    );
    expect(mismatch.message).toBe(
      'Deployment.apps "x" is invalid: spec.template.metadata.labels: Invalid value: {"app":"b"}: `selector` does not match template `labels`',
    );
    const missing = await rejection(deployments.create("default", { metadata: { name: "x" }, spec: { template: template({ app: "b" }) } }));
    expect(missing.message).toBe('Deployment.apps "x" is invalid: spec.selector: Required value');
    const zero = await rejection(
      deployments.create("default", {
        metadata: { name: "x" },
        spec: {
          selector: { matchLabels: { app: "a" } },
          template: template({ app: "a" }),
          strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } },
        },
      }),
    );
    expect(zero.message).toContain("spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0");
    const negative = await rejection(
      deployments.create("default", {
        metadata: { name: "x" },
        spec: { replicas: -1, selector: { matchLabels: { app: "a" } }, template: template({ app: "a" }) },
      }),
    );
    expect(negative.message).toContain("spec.replicas: Invalid value: -1: must be greater than or equal to 0");
  });

  it("keeps a ReplicaSet's selector as created", async () => {
    const replicaSets = storeFor(replicaSetsResource);
    await replicaSets.create("default", {
      metadata: { name: "rs" },
      spec: { selector: { matchLabels: { app: "a" } }, template: template({ app: "a", v: "1" }) },
    });
    const refused = await rejection(
      replicaSets.guaranteedUpdate("default", "rs", (rs) => {
        (rs["spec"] as { selector: unknown }).selector = { matchLabels: { v: "1" } };
        return rs;
      }),
    );
    expect(refused.message).toContain("spec.selector: Invalid value:");
    expect(refused.message).toContain("field is immutable");
  });
});

describe("services", () => {
  const allocators = (): ServiceAllocators => ({ clusterIPs: new ClusterIPAllocator("10.96.0.0/24"), nodePorts: new NodePortAllocator() });

  it("allocates a ClusterIP and NodePorts, and refuses taken ones with upstream's errors", async () => {
    const held = allocators();
    const services = storeFor(servicesResource(held));
    const web = (await services.create("default", {
      metadata: { name: "web" },
      spec: { type: "NodePort", selector: { app: "web" }, ports: [{ port: 80 }] },
    })) as KubeObject & {
      spec: { clusterIP: string; clusterIPs: string[]; ports: Array<{ nodePort: number; targetPort: number; protocol: string }> };
    };
    expect(held.clusterIPs.isAllocated(web.spec.clusterIP)).toBe(true);
    expect(web.spec.clusterIPs).toEqual([web.spec.clusterIP]);
    const nodePort = web.spec.ports[0]!.nodePort;
    expect(nodePort).toBeGreaterThanOrEqual(30000);
    expect(web.spec.ports[0]).toMatchObject({ protocol: "TCP", targetPort: 80 });

    const samePort = await rejection(
      services.create("default", { metadata: { name: "b" }, spec: { type: "NodePort", ports: [{ port: 80, nodePort }] } }),
    );
    expect(samePort.message).toBe(
      `Service "b" is invalid: spec.ports[0].nodePort: Invalid value: ${nodePort}: provided port is already allocated`,
    );
    const sameIP = await rejection(
      services.create("default", { metadata: { name: "c" }, spec: { clusterIP: web.spec.clusterIP, ports: [{ port: 80 }] } }),
    );
    expect(sameIP.message).toBe(
      `Service "c" is invalid: spec.clusterIPs: Invalid value: ["${web.spec.clusterIP}"]: failed to allocate IP ${web.spec.clusterIP}: provided IP is already allocated`,
    );
    const outside = await rejection(
      services.create("default", { metadata: { name: "d" }, spec: { type: "NodePort", ports: [{ port: 80, nodePort: 80 }] } }),
    );
    expect(outside.message).toContain("provided port is not in the valid range. The range of valid ports is 30000-32767");
    // A refused create holds nothing.
    expect(held.clusterIPs.used).toBe(1);
    expect(held.nodePorts.used).toBe(1);
  });

  it("validates type, ports and nodePort use with upstream's messages", async () => {
    const services = storeFor(servicesResource(allocators()));
    expect((await rejection(services.create("default", { metadata: { name: "a" }, spec: {} }))).message).toBe(
      'Service "a" is invalid: spec.ports: Required value',
    );
    const bad = await rejection(
      services.create("default", { metadata: { name: "a" }, spec: { type: "Foo", ports: [{ port: 0, protocol: "X", nodePort: 30001 }] } }),
    );
    expect(bad.message).toContain(
      'spec.type: Unsupported value: "Foo": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
    );
    expect(bad.message).toContain("spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive");
    expect(bad.message).toContain('spec.ports[0].protocol: Unsupported value: "X": supported values: "SCTP", "TCP", "UDP"');
    const nodePortOnClusterIP = await rejection(
      services.create("default", { metadata: { name: "a" }, spec: { ports: [{ port: 80, nodePort: 30001 }] } }),
    );
    expect(nodePortOnClusterIP.message).toContain("spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'");
  });

  it("shows kubectl's columns", async () => {
    const services = storeFor(servicesResource(allocators()));
    const svc = await services.create("default", {
      metadata: { name: "web" },
      spec: { type: "NodePort", clusterIP: "10.96.0.7", ports: [{ port: 80, nodePort: 30080 }], selector: { app: "web" } },
    });
    const table = toTable(servicesResource(allocators()), [svc], { wide: true });
    expect(table.columnDefinitions.map((c) => c.name)).toEqual(["Name", "Type", "Cluster-IP", "External-IP", "Port(s)", "Age", "Selector"]);
    expect(table.rows[0]!.cells.slice(0, 5)).toEqual(["web", "NodePort", "10.96.0.7", "<none>", "80:30080/TCP"]);
    expect(table.rows[0]!.cells[6]).toBe("app=web");
  });
});

describe("nodes and priority classes", () => {
  it("shows a node's readiness and addresses as kubectl does", async () => {
    const nodes = storeFor(nodesResource);
    const node = await nodes.create(undefined, {
      metadata: { name: "n1", labels: { "node-role.kubernetes.io/worker": "" } },
      spec: { providerID: "sim://n1" },
    });
    const withStatus = {
      ...node,
      status: {
        conditions: [{ type: "Ready", status: "True" }],
        addresses: [{ type: "InternalIP", address: "10.0.0.1" }],
        nodeInfo: { kubeletVersion: "v1.32.0" },
      },
    };
    const table = toTable(nodesResource, [withStatus], { wide: true });
    expect(table.rows[0]!.cells.slice(0, 3)).toEqual(["n1", "Ready", "worker"]);
    expect(table.rows[0]!.cells[4]).toBe("v1.32.0");
    expect(table.rows[0]!.cells[5]).toBe("10.0.0.1");
    const moved = await rejection(nodes.guaranteedUpdate(undefined, "n1", (n) => ({ ...n, spec: { providerID: "sim://other" } })));
    expect(moved.message).toContain('spec.providerID: Forbidden: node updates may not change providerID except from "" to valid');
  });

  it("reserves the system- prefix and values above one billion", async () => {
    const classes = storeFor(priorityClassesResource);
    const reserved = await rejection(classes.create(undefined, { metadata: { name: "system-mine" }, value: 5 }));
    expect(reserved.message).toContain("priority class names with 'system-' prefix are reserved for system use only");
    const high = await rejection(classes.create(undefined, { metadata: { name: "high" }, value: 1_000_000_001 }));
    expect(high.message).toContain("value: Forbidden: maximum allowed value of a user defined priority is 1000000000");
    const created = await classes.create(undefined, { metadata: { name: "high" }, value: 1000 });
    expect(created["preemptionPolicy"]).toBe("PreemptLowerPriority");
  });
});
