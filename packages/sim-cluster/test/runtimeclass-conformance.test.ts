/**
 * Ports, with upstream's objects and assertions, of kubernetes/kubernetes
 * test/e2e/common/node/runtimeclass.go (conformance): "should support RuntimeClasses API
 * operations", "should reject a Pod requesting a non-existent RuntimeClass", "should schedule a
 * Pod requesting a RuntimeClass without PodOverhead", "should schedule a Pod requesting a
 * RuntimeClass and initialize its Overhead" and "should reject a Pod requesting a deleted
 * RuntimeClass". Plus the scheduler counting the overhead, the class's scheduling constraints
 * reaching the pod, and kubectl 1.32's `get runtimeclass`.
 */
import type { ResourceRef } from "@kubekit/generic-controlplane/controllers";
import { describe, expect, it } from "vitest";
import type { Pod } from "../src/resources/pods.js";
import type { RuntimeClass } from "../src/resources/runtime-classes.js";
import { PODS } from "../src/refs.js";
import { eventually, kubectl } from "./kubectl.js";
import { useSimCluster } from "./fixture.js";

const RUNTIME_CLASSES: ResourceRef = { group: "node.k8s.io", version: "v1", resource: "runtimeclasses", namespaced: false };
const PreconfiguredRuntimeClassHandler = "test-handler";

const sim = useSimCluster({ nodes: 1, nodeCapacity: { cpu: "1", memory: "1Gi", pods: "110" } });

/** runtimeclasstest.NewRuntimeClass. */
function newRuntimeClass(name: string, handler: string): RuntimeClass {
  return { apiVersion: "node.k8s.io/v1", kind: "RuntimeClass", metadata: { name }, handler };
}

/** e2eruntimeclass.NewRuntimeClassPod. */
function newRuntimeClassPod(runtimeClassName: string): Pod {
  return {
    metadata: { generateName: "test-runtimeclass-" },
    spec: {
      runtimeClassName,
      containers: [{ name: "test", image: "registry.k8s.io/e2e-test-images/busybox:1.36.1-1", command: ["true"] }],
      restartPolicy: "Never",
      automountServiceAccountToken: false,
    },
  };
}

async function createRuntimeClass(ns: string, name: string, handler: string, overhead?: RuntimeClass["overhead"]): Promise<string> {
  const rc = newRuntimeClass(`${ns}-${name}`, handler);
  if (overhead !== undefined) rc.overhead = overhead;
  return (await sim.client.create<RuntimeClass>(RUNTIME_CLASSES, undefined, rc)).metadata?.name ?? "";
}

async function expectPodRejection(ns: string, pod: Pod): Promise<void> {
  await expect(sim.client.create(PODS, ns, pod)).rejects.toMatchObject({ code: 403 });
}

async function waitForPodsScheduled(ns: string): Promise<Pod[]> {
  return eventually("the namespace's pods scheduled", async () => {
    const pods = (await sim.client.list<Pod>(PODS, ns)).items;
    return pods.length > 0 && pods.every((p) => p.spec?.nodeName) ? pods : undefined;
  });
}

describe("[sig-node] RuntimeClass (test/e2e/common/node/runtimeclass.go)", { timeout: 30_000 }, () => {
  it("should reject a Pod requesting a non-existent RuntimeClass", async () => {
    const ns = await sim.newNamespace("runtimeclass");
    await expectPodRejection(ns, newRuntimeClassPod(`${ns}-nonexistent`));
  });

  it("should schedule a Pod requesting a RuntimeClass without PodOverhead", async () => {
    const ns = await sim.newNamespace("runtimeclass");
    const rcName = await createRuntimeClass(ns, "preconfigured-handler", PreconfiguredRuntimeClassHandler);
    try {
      const pod = await sim.client.create<Pod>(PODS, ns, newRuntimeClassPod(rcName));
      const pods = await waitForPodsScheduled(ns);
      expect(pods).toHaveLength(1);
      expect(pods[0]?.metadata?.name).toBe(pod.metadata?.name);
      expect(pods[0]?.spec?.overhead ?? {}).toEqual({});
    } finally {
      await sim.client.delete(RUNTIME_CLASSES, undefined, rcName);
    }
  });

  it("should schedule a Pod requesting a RuntimeClass and initialize its Overhead", async () => {
    const ns = await sim.newNamespace("runtimeclass");
    const rcName = await createRuntimeClass(ns, "preconfigured-handler", PreconfiguredRuntimeClassHandler, {
      podFixed: { cpu: "10m", memory: "1Mi" },
    });
    try {
      const pod = await sim.client.create<Pod>(PODS, ns, newRuntimeClassPod(rcName));
      const pods = await waitForPodsScheduled(ns);
      expect(pods).toHaveLength(1);
      const scheduledPod = pods[0];
      expect(scheduledPod?.metadata?.name).toBe(pod.metadata?.name);
      expect(scheduledPod?.spec?.overhead?.["cpu"]).toBe("10m");
      expect(scheduledPod?.spec?.overhead?.["memory"]).toBe("1Mi");
    } finally {
      await sim.client.delete(RUNTIME_CLASSES, undefined, rcName);
    }
  });

  it("should reject a Pod requesting a deleted RuntimeClass", async () => {
    const ns = await sim.newNamespace("runtimeclass");
    const rcName = await createRuntimeClass(ns, "delete-me", "runc");
    await sim.client.delete(RUNTIME_CLASSES, undefined, rcName);
    await eventually("the RuntimeClass gone", async () =>
      sim.client.get(RUNTIME_CLASSES, undefined, rcName).then(
        () => undefined,
        (error: { code?: number }) => (error.code === 404 ? true : undefined),
      ),
    );
    await expectPodRejection(ns, newRuntimeClassPod(rcName));
  });

  it("should support RuntimeClasses API operations", async () => {
    const uniqueName = sim.uniqueName("runtimeclass-api");
    const rc = {
      ...newRuntimeClass(`${uniqueName}-handler`, `${uniqueName}-conformance-runtime-class`),
      metadata: { name: `${uniqueName}-handler`, labels: { test: uniqueName } },
    };
    const rc2 = {
      ...newRuntimeClass(`${uniqueName}-handler2`, `${uniqueName}-conformance-runtime-class2`),
      metadata: { name: `${uniqueName}-handler2`, labels: { test: uniqueName } },
    };
    const rc3 = {
      ...newRuntimeClass(`${uniqueName}-handler3`, `${uniqueName}-conformance-runtime-class3`),
      metadata: { name: `${uniqueName}-handler3`, labels: { test: uniqueName } },
    };

    // Discovery
    const groups = (await sim.client.request("GET", "/apis")) as { groups: Array<{ name: string; versions: Array<{ version: string }> }> };
    expect(groups.groups.find((g) => g.name === "node.k8s.io")?.versions.map((v) => v.version)).toContain("v1");
    const group = (await sim.client.request("GET", "/apis/node.k8s.io")) as { versions: Array<{ version: string }> };
    expect(group.versions.map((v) => v.version)).toContain("v1");
    const resources = (await sim.client.request("GET", "/apis/node.k8s.io/v1")) as { resources: Array<{ name: string }> };
    expect(resources.resources.map((r) => r.name)).toContain("runtimeclasses");

    // creating
    const createdRC = await sim.client.create<RuntimeClass>(RUNTIME_CLASSES, undefined, rc);
    await expect(sim.client.create(RUNTIME_CLASSES, undefined, rc)).rejects.toMatchObject({ code: 409 });
    await sim.client.create(RUNTIME_CLASSES, undefined, rc2);

    // watching
    const seen = { added: false, patched: false, updated: false };
    const rcWatch = await sim.client.watch("/apis/node.k8s.io/v1/runtimeclasses", { labelSelector: `test=${uniqueName}` }, (event) => {
      const annotations = event.object.metadata?.annotations ?? {};
      if (event.type === "ADDED") seen.added = true;
      if (event.type === "MODIFIED" && annotations["patched"] === "true") seen.patched = true;
      if (event.type === "MODIFIED" && annotations["updated"] === "true") seen.updated = true;
    });
    try {
      // added for a watch
      await sim.client.create(RUNTIME_CLASSES, undefined, rc3);

      // getting
      const gottenRC = await sim.client.get<RuntimeClass>(RUNTIME_CLASSES, undefined, rc.metadata.name);
      expect(gottenRC.metadata?.uid).toBe(createdRC.metadata?.uid);

      // listing
      const rcs = await sim.client.list(RUNTIME_CLASSES, undefined, { labelSelector: `test=${uniqueName}` });
      expect(rcs.items).toHaveLength(3);

      // patching
      const patchedRC = await sim.client.patch<RuntimeClass>(RUNTIME_CLASSES, undefined, rc.metadata.name, {
        metadata: { annotations: { patched: "true" } },
      });
      expect(patchedRC.metadata?.annotations).toHaveProperty("patched", "true");

      // updating
      patchedRC.metadata!.annotations!["updated"] = "true";
      const updatedRC = await sim.client.update<RuntimeClass>(RUNTIME_CLASSES, undefined, patchedRC);
      expect(updatedRC.metadata?.annotations).toHaveProperty("updated", "true");

      await eventually("the watch events", () => Promise.resolve(seen.added || seen.patched || seen.updated ? true : undefined));
    } finally {
      rcWatch.stop();
    }

    // deleting
    await sim.client.delete(RUNTIME_CLASSES, undefined, rc.metadata.name);
    await expect(sim.client.get(RUNTIME_CLASSES, undefined, rc.metadata.name)).rejects.toMatchObject({ code: 404 });
    expect((await sim.client.list(RUNTIME_CLASSES, undefined, { labelSelector: `test=${uniqueName}` })).items).toHaveLength(2);

    // deleting a collection
    await sim.client.deleteCollection(RUNTIME_CLASSES, undefined, {}, { labelSelector: `test=${uniqueName}` });
    expect((await sim.client.list(RUNTIME_CLASSES, undefined, { labelSelector: `test=${uniqueName}` })).items).toHaveLength(0);
  });
});

describe("RuntimeClass overhead and scheduling", { timeout: 30_000 }, () => {
  it("the scheduler counts the overhead: a pod that fits by its requests alone stays Pending with upstream's FitError", async () => {
    const ns = await sim.newNamespace("overhead");
    const rcName = await createRuntimeClass(ns, "heavy", "runc", { podFixed: { cpu: "200m" } });
    try {
      const pod = newRuntimeClassPod(rcName);
      pod.spec!.containers![0]!.resources = { requests: { cpu: "900m" } };
      const created = await sim.client.create<Pod>(PODS, ns, pod);
      const unschedulable = await eventually("the pod marked unschedulable", async () => {
        const current = await sim.client.get<Pod>(PODS, ns, created.metadata?.name ?? "");
        return current.status?.conditions?.find((c) => c.type === "PodScheduled" && c.reason === "Unschedulable");
      });
      expect(unschedulable.message).toMatch(/^0\/1 nodes are available: 1 Insufficient cpu\./);
    } finally {
      await sim.client.deleteCollection(PODS, ns);
      await sim.client.delete(RUNTIME_CLASSES, undefined, rcName);
    }
  });

  it("merges the class's node selector and tolerations into the pod, and refuses a conflicting node selector or a different overhead", async () => {
    const ns = await sim.newNamespace("rc-scheduling");
    const rcName = `${ns}-sched`;
    await sim.client.create(RUNTIME_CLASSES, undefined, {
      ...newRuntimeClass(rcName, "runc"),
      overhead: { podFixed: { cpu: "10m" } },
      scheduling: {
        nodeSelector: { "kubernetes.io/os": "linux" },
        tolerations: [{ key: "sandbox", operator: "Exists", effect: "NoSchedule" }],
      },
    });
    try {
      const pod = await sim.client.create<Pod>(PODS, ns, newRuntimeClassPod(rcName));
      expect(pod.spec?.nodeSelector).toEqual({ "kubernetes.io/os": "linux" });
      expect(pod.spec?.["tolerations"]).toContainEqual({ key: "sandbox", operator: "Exists", effect: "NoSchedule" });
      const conflicting = newRuntimeClassPod(rcName);
      conflicting.spec!.nodeSelector = { "kubernetes.io/os": "windows" };
      await expect(sim.client.create(PODS, ns, conflicting)).rejects.toThrow(
        "conflict: runtimeClass.scheduling.nodeSelector[kubernetes.io/os] = linux; pod.spec.nodeSelector[kubernetes.io/os] = windows",
      );
      const otherOverhead = newRuntimeClassPod(rcName);
      otherOverhead.spec!.overhead = { cpu: "1" };
      await expect(sim.client.create(PODS, ns, otherOverhead)).rejects.toThrow(
        "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead",
      );
      const withoutClass = newRuntimeClassPod(rcName);
      delete withoutClass.spec!.runtimeClassName;
      withoutClass.spec!.overhead = { cpu: "10m" };
      await expect(sim.client.create(PODS, ns, withoutClass)).rejects.toThrow(
        "pod rejected: Pod Overhead set without corresponding RuntimeClass",
      );
    } finally {
      await sim.client.deleteCollection(PODS, ns);
      await sim.client.delete(RUNTIME_CLASSES, undefined, rcName);
    }
  });

  it("kubectl 1.32 `get runtimeclass` shows the handler", async () => {
    const rcName = "kubectl-runtimeclass";
    await sim.client.create(RUNTIME_CLASSES, undefined, newRuntimeClass(rcName, "runsc"));
    try {
      const table = await kubectl(sim.kubeconfig, ["get", "runtimeclass", rcName]);
      expect(table.stdout).toMatch(/^NAME\s+HANDLER\s+AGE\nkubectl-runtimeclass\s+runsc\s+\S+\n$/);
    } finally {
      await sim.client.delete(RUNTIME_CLASSES, undefined, rcName);
    }
  });
});
