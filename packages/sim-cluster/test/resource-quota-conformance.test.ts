/**
 * Ports, with upstream's objects and assertions, of kubernetes/kubernetes
 * test/e2e/apimachinery/resource_quota.go ("[sig-api-machinery] ResourceQuota", conformance):
 * "should create a ResourceQuota and capture the life of a pod", "… of a service", "should verify
 * ResourceQuota with terminating scopes" and "should verify ResourceQuota with best effort scope";
 * and of its "[Feature:PodPriority]" block: "should verify ResourceQuota's priority class scope
 * (quota set to pod count: 1) against a pod with same priority class", "… against 2 pods with same
 * priority class", "… against 2 pods with different priority class", "…'s multiple priority class
 * scope (quota set to pod count: 2) against 2 pods with same priority classes", "… against a pod
 * with different priority class (ScopeSelectorOpNotIn)" and "… (ScopeSelectorOpExists)";
 * then what 1.32 does with an in-place resize (`pods/resize`) that a quota cannot take, and with a
 * pod that goes terminal. The `newTest…ForQuota` helpers are upstream's.
 */
import type { KubeObject } from "@kubekit/generic-controlplane";
import { isApiError, type ResourceRef } from "@kubekit/generic-controlplane/controllers";
import { parseMilli } from "@kubekit/generic-controlplane/registry";
import { describe, expect, it } from "vitest";
import { PODS, PRIORITY_CLASSES, SERVICES } from "../src/refs.js";
import { eventually } from "./kubectl.js";
import { useSimCluster } from "./fixture.js";

const RESOURCE_QUOTAS: ResourceRef = { group: "", version: "v1", resource: "resourcequotas", namespaced: true };
const extendedResourceName = "example.com/dongle";
const classGold = "gold";

type ResourceList = Record<string, string>;
interface Quota extends KubeObject {
  spec?: {
    hard?: ResourceList;
    scopes?: string[];
    scopeSelector?: { matchExpressions: Array<{ scopeName: string; operator: string; values: string[] }> };
  };
  status?: { hard?: ResourceList; used?: ResourceList };
}

const sim = useSimCluster({ nodes: 1, namespacePrefix: "resourcequota" });

function newTestResourceQuota(name: string): Quota {
  return {
    metadata: { name },
    spec: {
      hard: {
        pods: "5",
        services: "10",
        "services.nodeports": "1",
        "services.loadbalancers": "1",
        replicationcontrollers: "10",
        resourcequotas: "1",
        cpu: "1",
        memory: "500Mi",
        configmaps: "10",
        secrets: "10",
        persistentvolumeclaims: "10",
        "requests.storage": "10Gi",
        "ephemeral-storage": "50Gi",
        [`${classGold}.storageclass.storage.k8s.io/persistentvolumeclaims`]: "10",
        [`${classGold}.storageclass.storage.k8s.io/requests.storage`]: "10Gi",
        "count/replicasets.apps": "5",
        [`requests.${extendedResourceName}`]: "3",
      },
    },
  };
}

function newTestResourceQuotaWithScope(name: string, scope: string): Quota {
  const hard: ResourceList = { pods: "5" };
  if (scope === "Terminating" || scope === "NotTerminating")
    Object.assign(hard, { "requests.cpu": "1", "requests.memory": "500Mi", "limits.cpu": "2", "limits.memory": "1Gi" });
  return { metadata: { name }, spec: { hard, scopes: [scope] } };
}

function newTestPodForQuota(name: string, requests: ResourceList, limits: ResourceList) {
  return {
    metadata: { name },
    spec: {
      // prevent disruption to other test workloads by ensuring the quota test pods don't get scheduled onto a node
      nodeSelector: { "x-test.k8s.io/unsatisfiable": "not-schedulable" },
      containers: [{ name: "pause", image: "registry.k8s.io/pause:3.10", resources: { requests, limits } }],
    },
  };
}

function newTestResourceQuotaWithScopeForPriorityClass(name: string, hard: ResourceList, operator: string, values: string[]): Quota {
  return { metadata: { name }, spec: { hard, scopeSelector: { matchExpressions: [{ scopeName: "PriorityClass", operator, values }] } } };
}

function newTestPodForQuotaWithPriority(name: string, requests: ResourceList, limits: ResourceList, priorityClassName: string) {
  const pod = newTestPodForQuota(name, requests, limits);
  return { ...pod, spec: { ...pod.spec, priorityClassName } };
}

async function createPriorityClass(name: string): Promise<void> {
  await sim.client.create(PRIORITY_CLASSES, undefined, { metadata: { name }, value: 1000 }).catch((error: unknown) => {
    if (!(isApiError(error) && error.code === 409)) throw error;
  });
}

function newTestServiceForQuota(name: string, type: string, allocateLoadBalancerNodePorts: boolean) {
  return {
    metadata: { name },
    spec: { type, ports: [{ port: 80, targetPort: 80 }], ...(type === "LoadBalancer" ? { allocateLoadBalancerNodePorts } : {}) },
  };
}

/** upstream `waitForResourceQuota`: until status.used equals each named quantity (by value); other resources are ignored. */
async function waitForResourceQuota(ns: string, name: string, used: ResourceList): Promise<Quota> {
  return eventually(
    `quota ${ns}/${name} to use ${JSON.stringify(used)}`,
    async () => {
      const quota = await sim.client.get<Quota>(RESOURCE_QUOTAS, ns, name);
      const matches = Object.entries(used).every(([resource, value]) => {
        const got = quota.status?.used?.[resource];
        return got !== undefined && parseMilli(got) === parseMilli(value);
      });
      return matches ? quota : undefined;
    },
    30_000,
  );
}

/** upstream `ensureResourceQuota`: the usage holds for a while. */
async function ensureResourceQuota(ns: string, name: string, used: ResourceList): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await waitForResourceQuota(ns, name, used);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function refusal(attempt: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await attempt;
  } catch (error) {
    if (isApiError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("the request was not refused");
}

const deleteNow = (ns: string, name: string) => sim.client.delete(PODS, ns, name, { gracePeriodSeconds: 0 });

describe("[sig-api-machinery] ResourceQuota (test/e2e/apimachinery/resource_quota.go)", { timeout: 120_000 }, () => {
  it("should create a ResourceQuota and capture the life of a pod", async () => {
    const ns = await sim.newNamespace();
    const quotaName = "test-quota";
    await sim.client.create(RESOURCE_QUOTAS, ns, newTestResourceQuota(quotaName));
    const usedResources: ResourceList = { resourcequotas: "1" };
    await waitForResourceQuota(ns, quotaName, usedResources);

    // Creating a Pod that fits quota
    const podName = "test-pod";
    let requests: ResourceList = { cpu: "500m", memory: "252Mi", "ephemeral-storage": "30Gi", [extendedResourceName]: "2" };
    let limits: ResourceList = { [extendedResourceName]: "2" };
    const podToUpdate = await sim.client.create<ReturnType<typeof newTestPodForQuota>>(
      PODS,
      ns,
      newTestPodForQuota(podName, requests, limits),
    );

    // Ensuring ResourceQuota status captures the pod usage
    Object.assign(usedResources, {
      pods: "1",
      cpu: requests.cpu,
      memory: requests.memory,
      "ephemeral-storage": requests["ephemeral-storage"],
      [`requests.${extendedResourceName}`]: requests[extendedResourceName],
    });
    await waitForResourceQuota(ns, quotaName, usedResources);

    // Not allowing a pod to be created that exceeds remaining quota
    requests = { cpu: "600m", memory: "100Mi" };
    const overCpu = await refusal(sim.client.create(PODS, ns, newTestPodForQuota("fail-pod", requests, {})));
    expect(overCpu.code).toBe(403);
    expect(overCpu.message).toBe(
      'pods "fail-pod" is forbidden: exceeded quota: test-quota, requested: cpu=600m, used: cpu=500m, limited: cpu=1',
    );

    // Not allowing a pod to be created that exceeds remaining quota (validation on extended resources)
    requests = { cpu: "500m", memory: "100Mi", "ephemeral-storage": "30Gi", [extendedResourceName]: "2" };
    limits = { [extendedResourceName]: "2" };
    const overDongles = await refusal(sim.client.create(PODS, ns, newTestPodForQuota("fail-pod-for-extended-resource", requests, limits)));
    expect(overDongles.message).toBe(
      'pods "fail-pod-for-extended-resource" is forbidden: exceeded quota: test-quota, requested: ephemeral-storage=30Gi,requests.example.com/dongle=2, used: ephemeral-storage=30Gi,requests.example.com/dongle=2, limited: ephemeral-storage=50Gi,requests.example.com/dongle=3',
    );

    // Ensuring a pod cannot update its resource requirements
    podToUpdate.spec.containers[0]!.resources.requests = { cpu: "100m", memory: "100Mi", "ephemeral-storage": "10Gi" };
    expect((await refusal(sim.client.update(PODS, ns, podToUpdate))).code).toBeGreaterThanOrEqual(400);

    // Ensuring attempts to update pod resource requirements did not change quota usage
    await waitForResourceQuota(ns, quotaName, usedResources);

    // Deleting the pod; the quota releases its usage
    await deleteNow(ns, podName);
    Object.assign(usedResources, {
      resourcequotas: "1",
      pods: "0",
      cpu: "0",
      memory: "0",
      "ephemeral-storage": "0",
      [`requests.${extendedResourceName}`]: "0",
    });
    await waitForResourceQuota(ns, quotaName, usedResources);
  });

  it("should create a ResourceQuota and capture the life of a service", async () => {
    const ns = await sim.newNamespace();
    const quotaName = "test-quota";
    await sim.client.create(RESOURCE_QUOTAS, ns, newTestResourceQuota(quotaName));
    let usedResources: ResourceList = { resourcequotas: "1" };
    await waitForResourceQuota(ns, quotaName, usedResources);

    await sim.client.create(SERVICES, ns, newTestServiceForQuota("test-service", "ClusterIP", false));
    await sim.client.create(SERVICES, ns, newTestServiceForQuota("test-service-np", "NodePort", false));

    // Not allowing a LoadBalancer Service with NodePort to be created that exceeds remaining quota
    const refused = await refusal(sim.client.create(SERVICES, ns, newTestServiceForQuota("test-service-lb", "LoadBalancer", true)));
    expect(refused.message).toBe(
      'services "test-service-lb" is forbidden: exceeded quota: test-quota, requested: services.nodeports=1, used: services.nodeports=1, limited: services.nodeports=1',
    );

    usedResources = { resourcequotas: "1", services: "2", "services.nodeports": "1" };
    await waitForResourceQuota(ns, quotaName, usedResources);

    await sim.client.delete(SERVICES, ns, "test-service");
    await sim.client.delete(SERVICES, ns, "test-service-np");
    Object.assign(usedResources, { services: "0", "services.nodeports": "0" });
    await waitForResourceQuota(ns, quotaName, usedResources);
  });

  it("should verify ResourceQuota with terminating scopes", async () => {
    const ns = await sim.newNamespace();
    await sim.client.create(RESOURCE_QUOTAS, ns, newTestResourceQuotaWithScope("quota-terminating", "Terminating"));
    const usedResources: ResourceList = { pods: "0" };
    await waitForResourceQuota(ns, "quota-terminating", usedResources);
    await sim.client.create(RESOURCE_QUOTAS, ns, newTestResourceQuotaWithScope("quota-not-terminating", "NotTerminating"));
    await waitForResourceQuota(ns, "quota-not-terminating", usedResources);

    // Creating a long running pod
    const requests = { cpu: "500m", memory: "200Mi" };
    const limits = { cpu: "1", memory: "400Mi" };
    await sim.client.create(PODS, ns, newTestPodForQuota("test-pod", requests, limits));
    const charged = {
      pods: "1",
      "requests.cpu": requests.cpu,
      "requests.memory": requests.memory,
      "limits.cpu": limits.cpu,
      "limits.memory": limits.memory,
    };
    const released = { pods: "0", "requests.cpu": "0", "requests.memory": "0", "limits.cpu": "0", "limits.memory": "0" };
    await waitForResourceQuota(ns, "quota-not-terminating", charged);
    await ensureResourceQuota(ns, "quota-terminating", released);
    await deleteNow(ns, "test-pod");
    await waitForResourceQuota(ns, "quota-not-terminating", released);

    // Creating a terminating pod
    const terminating = newTestPodForQuota("terminating-pod", requests, limits);
    await sim.client.create(PODS, ns, { ...terminating, spec: { ...terminating.spec, activeDeadlineSeconds: 3600 } });
    await waitForResourceQuota(ns, "quota-terminating", charged);
    await waitForResourceQuota(ns, "quota-not-terminating", released);
    await ensureResourceQuota(ns, "quota-not-terminating", released);
    await deleteNow(ns, "terminating-pod");
    await waitForResourceQuota(ns, "quota-terminating", released);
  });

  it("should verify ResourceQuota with best effort scope", async () => {
    const ns = await sim.newNamespace();
    await sim.client.create(RESOURCE_QUOTAS, ns, newTestResourceQuotaWithScope("quota-besteffort", "BestEffort"));
    await waitForResourceQuota(ns, "quota-besteffort", { pods: "0" });
    await sim.client.create(RESOURCE_QUOTAS, ns, newTestResourceQuotaWithScope("quota-not-besteffort", "NotBestEffort"));
    await waitForResourceQuota(ns, "quota-not-besteffort", { pods: "0" });

    // Creating a best-effort pod
    await sim.client.create(PODS, ns, newTestPodForQuota("pfpod", {}, {}));
    await waitForResourceQuota(ns, "quota-besteffort", { pods: "1" });
    await waitForResourceQuota(ns, "quota-not-besteffort", { pods: "0" });
    await deleteNow(ns, "pfpod");
    await waitForResourceQuota(ns, "quota-besteffort", { pods: "0" });

    // Creating a not best-effort pod
    await sim.client.create(PODS, ns, newTestPodForQuota("burstable-pod", { cpu: "500m", memory: "200Mi" }, { cpu: "1", memory: "400Mi" }));
    await waitForResourceQuota(ns, "quota-not-besteffort", { pods: "1" });
    await waitForResourceQuota(ns, "quota-besteffort", { pods: "0" });
    await deleteNow(ns, "burstable-pod");
    await waitForResourceQuota(ns, "quota-not-besteffort", { pods: "0" });
  });
});

describe("[sig-api-machinery] ResourceQuota [Feature:PodPriority] (test/e2e/apimachinery/resource_quota.go)", { timeout: 120_000 }, () => {
  it("should verify ResourceQuota's priority class scope (quota set to pod count: 1) against a pod with same priority class", async () => {
    const ns = await sim.newNamespace();
    await createPriorityClass("pclass1");
    await sim.client.create(
      RESOURCE_QUOTAS,
      ns,
      newTestResourceQuotaWithScopeForPriorityClass("quota-priorityclass", { pods: "1" }, "In", ["pclass1"]),
    );
    await waitForResourceQuota(ns, "quota-priorityclass", { pods: "0" });
    await sim.client.create(PODS, ns, newTestPodForQuotaWithPriority("testpod-pclass1", {}, {}, "pclass1"));
    await waitForResourceQuota(ns, "quota-priorityclass", { pods: "1" });
    await deleteNow(ns, "testpod-pclass1");
    await waitForResourceQuota(ns, "quota-priorityclass", { pods: "0" });
  });

  it("should verify ResourceQuota's priority class scope (quota set to pod count: 1) against 2 pods with same priority class", async () => {
    const ns = await sim.newNamespace();
    await createPriorityClass("pclass2");
    await sim.client.create(
      RESOURCE_QUOTAS,
      ns,
      newTestResourceQuotaWithScopeForPriorityClass("quota-priorityclass", { pods: "1" }, "In", ["pclass2"]),
    );
    await waitForResourceQuota(ns, "quota-priorityclass", { pods: "0" });
    await sim.client.create(PODS, ns, newTestPodForQuotaWithPriority("testpod-pclass2-1", {}, {}, "pclass2"));
    await waitForResourceQuota(ns, "quota-priorityclass", { pods: "1" });
    const refused = await refusal(sim.client.create(PODS, ns, newTestPodForQuotaWithPriority("testpod-pclass2-2", {}, {}, "pclass2")));
    expect(refused.message).toBe(
      'pods "testpod-pclass2-2" is forbidden: exceeded quota: quota-priorityclass, requested: pods=1, used: pods=1, limited: pods=1',
    );
    await deleteNow(ns, "testpod-pclass2-1");
    await waitForResourceQuota(ns, "quota-priorityclass", { pods: "0" });
  });

  it("should verify ResourceQuota's priority class scope (quota set to pod count: 1) against 2 pods with different priority class", async () => {
    const ns = await sim.newNamespace();
    await createPriorityClass("pclass3");
    await sim.client.create(
      RESOURCE_QUOTAS,
      ns,
      newTestResourceQuotaWithScopeForPriorityClass("quota-priorityclass", { pods: "1" }, "In", ["pclass4"]),
    );
    await waitForResourceQuota(ns, "quota-priorityclass", { pods: "0" });
    await sim.client.create(PODS, ns, newTestPodForQuotaWithPriority("testpod-pclass3-1", {}, {}, "pclass3"));
    await waitForResourceQuota(ns, "quota-priorityclass", { pods: "0" });
    await sim.client.create(PODS, ns, newTestPodForQuotaWithPriority("testpod-pclass2-2", {}, {}, "pclass3"));
    await waitForResourceQuota(ns, "quota-priorityclass", { pods: "0" });
    await deleteNow(ns, "testpod-pclass3-1");
    await deleteNow(ns, "testpod-pclass2-2");
  });

  it("should verify ResourceQuota's multiple priority class scope (quota set to pod count: 2) against 2 pods with same priority classes", async () => {
    const ns = await sim.newNamespace();
    await createPriorityClass("pclass5");
    await createPriorityClass("pclass6");
    await sim.client.create(
      RESOURCE_QUOTAS,
      ns,
      newTestResourceQuotaWithScopeForPriorityClass("quota-priorityclass", { pods: "2" }, "In", ["pclass5", "pclass6"]),
    );
    await waitForResourceQuota(ns, "quota-priorityclass", { pods: "0" });
    await sim.client.create(PODS, ns, newTestPodForQuotaWithPriority("testpod-pclass5", {}, {}, "pclass5"));
    await waitForResourceQuota(ns, "quota-priorityclass", { pods: "1" });
    await sim.client.create(PODS, ns, newTestPodForQuotaWithPriority("testpod-pclass6", {}, {}, "pclass6"));
    await waitForResourceQuota(ns, "quota-priorityclass", { pods: "2" });
    await deleteNow(ns, "testpod-pclass5");
    await deleteNow(ns, "testpod-pclass6");
    await waitForResourceQuota(ns, "quota-priorityclass", { pods: "0" });
  });

  it("should verify ResourceQuota's priority class scope (quota set to pod count: 1) against a pod with different priority class (ScopeSelectorOpNotIn)", async () => {
    const ns = await sim.newNamespace();
    await createPriorityClass("pclass7");
    await sim.client.create(
      RESOURCE_QUOTAS,
      ns,
      newTestResourceQuotaWithScopeForPriorityClass("quota-priorityclass", { pods: "1" }, "NotIn", ["pclass7"]),
    );
    await waitForResourceQuota(ns, "quota-priorityclass", { pods: "0" });
    await sim.client.create(PODS, ns, newTestPodForQuotaWithPriority("testpod-pclass7", {}, {}, "pclass7"));
    await waitForResourceQuota(ns, "quota-priorityclass", { pods: "0" });
    await deleteNow(ns, "testpod-pclass7");
  });

  it("should verify ResourceQuota's priority class scope (quota set to pod count: 1) against a pod with different priority class (ScopeSelectorOpExists)", async () => {
    const ns = await sim.newNamespace();
    await createPriorityClass("pclass8");
    await sim.client.create(
      RESOURCE_QUOTAS,
      ns,
      newTestResourceQuotaWithScopeForPriorityClass("quota-priorityclass", { pods: "1" }, "Exists", []),
    );
    await waitForResourceQuota(ns, "quota-priorityclass", { pods: "0" });
    await sim.client.create(PODS, ns, newTestPodForQuotaWithPriority("testpod-pclass8", {}, {}, "pclass8"));
    await waitForResourceQuota(ns, "quota-priorityclass", { pods: "1" });
    await deleteNow(ns, "testpod-pclass8");
    await waitForResourceQuota(ns, "quota-priorityclass", { pods: "0" });
  });
});

describe("ResourceQuota and a pod's life (upstream 1.32 evaluators)", { timeout: 120_000 }, () => {
  it("refuses an in-place resize the quota cannot take, admits one it can, and frees a terminal pod's compute", async () => {
    const ns = await sim.newNamespace();
    await sim.client.create(RESOURCE_QUOTAS, ns, {
      metadata: { name: "compute" },
      spec: { hard: { "requests.cpu": "2", pods: "3", "count/pods": "3" } },
    });
    await waitForResourceQuota(ns, "compute", { "requests.cpu": "0" });
    const cpuPod = (name: string, cpu: string, extra: Record<string, unknown> = {}) => ({
      metadata: { name, ...(extra["metadata"] as object) },
      spec: { restartPolicy: "Never", containers: [{ name: "c1", image: "x", resources: { requests: { cpu }, limits: { cpu } } }] },
    });
    await sim.client.create(PODS, ns, cpuPod("web", "500m"));
    await waitForResourceQuota(ns, "compute", { "requests.cpu": "500m", pods: "1" });
    await eventually(
      "web running",
      async () => ((await sim.client.get<{ status?: { phase?: string } }>(PODS, ns, "web")).status?.phase === "Running" ? true : undefined),
      30_000,
    );

    const resize = (cpu: string) =>
      sim.client.patch(
        PODS,
        ns,
        "web",
        { spec: { containers: [{ name: "c1", resources: { requests: { cpu }, limits: { cpu } } }] } },
        "application/strategic-merge-patch+json",
        "resize",
      );
    const refused = await refusal(resize("3"));
    expect(refused.code).toBe(403);
    expect(refused.message).toBe(
      'pods "web" is forbidden: exceeded quota: compute, requested: requests.cpu=2500m, used: requests.cpu=500m, limited: requests.cpu=2',
    );
    await resize("1");
    await waitForResourceQuota(ns, "compute", { "requests.cpu": "1" });

    // A pod that completes no longer uses compute quota or `pods`, but still counts as an object.
    await sim.client.create(
      PODS,
      ns,
      cpuPod("once", "500m", { metadata: { annotations: { "sim.kubekit.io/exit-codes": "0", "sim.kubekit.io/run-seconds": "0.5" } } }),
    );
    await waitForResourceQuota(ns, "compute", { "requests.cpu": "1500m", pods: "2", "count/pods": "2" });
    await eventually(
      "once to succeed",
      async () =>
        (await sim.client.get<{ status?: { phase?: string } }>(PODS, ns, "once")).status?.phase === "Succeeded" ? true : undefined,
      30_000,
    );
    await waitForResourceQuota(ns, "compute", { "requests.cpu": "1", pods: "1", "count/pods": "2" });
  });

  it("refuses a pod that omits a request the quota limits, naming the container", async () => {
    const ns = await sim.newNamespace();
    await sim.client.create(RESOURCE_QUOTAS, ns, {
      metadata: { name: "q" },
      spec: { hard: { "requests.cpu": "1", "limits.memory": "1Gi" } },
    });
    await waitForResourceQuota(ns, "q", { "requests.cpu": "0" });
    const refused = await refusal(
      sim.client.create(PODS, ns, {
        metadata: { name: "bare" },
        spec: {
          containers: [
            { name: "app", image: "x" },
            { name: "side", image: "x", resources: { requests: { cpu: "100m" } } },
          ],
        },
      }),
    );
    expect(refused.message).toBe(
      'pods "bare" is forbidden: failed quota: q: must specify limits.memory for: app,side; requests.cpu for: app',
    );
  });
});
