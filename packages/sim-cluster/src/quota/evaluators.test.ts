// The core quota evaluators' usage, scopes and matching names, as upstream's
// pkg/quota/v1/evaluator/core tests state them for pods, services and claims.
import { formatQuantity, type QuotaUsage } from "@kubekit/generic-controlplane/registry";
import { describe, expect, it } from "vitest";
import { qosClass, type Pod } from "../resources/pods.js";
import { podMatchesScope, podQuotaEvaluator, podQuotaUsage } from "./pod-evaluator.js";
import { claimQuotaUsage } from "./pvc-evaluator.js";
import { serviceQuotaUsage } from "./service-evaluator.js";

const texts = (usage: QuotaUsage): Record<string, string> =>
  Object.fromEntries([...usage].map(([name, amount]) => [name, formatQuantity(amount.milli, amount.format)]));
const now = new Date("2026-01-01T00:00:00Z");

describe("pod usage", () => {
  it("counts sidecars beside the app containers, an init container beside the sidecars before it, and the overhead", () => {
    const pod: Pod = {
      spec: {
        overhead: { cpu: "100m" },
        initContainers: [
          { name: "log", restartPolicy: "Always", resources: { requests: { cpu: "500m", memory: "100Mi" } } },
          { name: "setup", resources: { requests: { cpu: "3" } } },
        ],
        containers: [{ name: "app", resources: { requests: { cpu: "1", memory: "1Gi" }, limits: { cpu: "2" } } }],
      },
    };
    expect(texts(podQuotaUsage(pod, now))).toEqual({
      "count/pods": "1",
      pods: "1",
      cpu: "3600m",
      "requests.cpu": "3600m",
      "limits.cpu": "2100m",
      memory: "1124Mi",
      "requests.memory": "1124Mi",
    });
  });

  it("names extended resources only as requests, hugepages both ways, and ephemeral storage", () => {
    const pod: Pod = {
      spec: {
        containers: [
          {
            name: "c",
            resources: {
              requests: { "example.com/dongle": "2", "hugepages-2Mi": "4Mi", "ephemeral-storage": "1Gi" },
              limits: { "example.com/dongle": "2", "ephemeral-storage": "2Gi" },
            },
          },
        ],
      },
    };
    expect(texts(podQuotaUsage(pod, now))).toEqual({
      "count/pods": "1",
      pods: "1",
      "requests.example.com/dongle": "2",
      "hugepages-2Mi": "4Mi",
      "requests.hugepages-2Mi": "4Mi",
      "ephemeral-storage": "1Gi",
      "requests.ephemeral-storage": "1Gi",
      "limits.ephemeral-storage": "2Gi",
    });
  });

  it("stops charging compute for terminal pods and pods past their deletion grace, but still counts them", () => {
    const pod: Pod = {
      metadata: { deletionTimestamp: "2026-01-01T00:00:00Z", deletionGracePeriodSeconds: 30 },
      spec: { containers: [{ name: "c", resources: { requests: { cpu: "1" } } }] },
    };
    expect(texts(podQuotaUsage(pod, new Date("2026-01-01T00:00:10Z")))["requests.cpu"]).toBe("1");
    expect(texts(podQuotaUsage(pod, new Date("2026-01-01T00:00:31Z")))).toEqual({ "count/pods": "1" });
    expect(texts(podQuotaUsage({ ...pod, metadata: {}, status: { phase: "Failed" } }, now))).toEqual({ "count/pods": "1" });
  });

  it("tracks the pod names of a quota and no others", () => {
    expect(
      podQuotaEvaluator.matchingResources([
        "pods",
        "requests.example.com/dongle",
        "limits.example.com/dongle",
        "hugepages-2Mi",
        "requests.hugepages-2Mi",
        "count/pods",
        "services",
        "requests.storage",
      ]),
    ).toEqual(["pods", "requests.example.com/dongle", "hugepages-2Mi", "requests.hugepages-2Mi", "count/pods"]);
  });
});

describe("pod scopes", () => {
  const gold: Pod = { spec: { priorityClassName: "gold", containers: [{ name: "c" }] } };
  const plain: Pod = { spec: { containers: [{ name: "c", resources: { requests: { cpu: "1" } } }] } };
  it("matches PriorityClass selectors as a label selector on PriorityClass=<class>", () => {
    expect(podMatchesScope({ scopeName: "PriorityClass", operator: "In", values: ["gold"] }, gold)).toBe(true);
    expect(podMatchesScope({ scopeName: "PriorityClass", operator: "In", values: ["gold"] }, plain)).toBe(false);
    expect(podMatchesScope({ scopeName: "PriorityClass", operator: "NotIn", values: ["gold"] }, plain)).toBe(true);
    expect(podMatchesScope({ scopeName: "PriorityClass", operator: "NotIn", values: ["gold"] }, gold)).toBe(false);
    expect(podMatchesScope({ scopeName: "PriorityClass", operator: "Exists" }, plain)).toBe(false);
    expect(podMatchesScope({ scopeName: "PriorityClass", operator: "DoesNotExist" }, plain)).toBe(true);
  });

  it("takes QoS from cpu and memory only, comparing quantities by value (GetPodQOS)", () => {
    const only = (requests: Record<string, string>, limits: Record<string, string> = {}): Pod => ({
      spec: { containers: [{ name: "c", resources: { requests, limits } }] },
    });
    expect(
      podMatchesScope({ scopeName: "BestEffort", operator: "Exists" }, only({ "ephemeral-storage": "1Gi", "example.com/dongle": "1" })),
    ).toBe(true);
    expect(podMatchesScope({ scopeName: "BestEffort", operator: "Exists" }, only({ cpu: "0" }))).toBe(true);
    expect(podMatchesScope({ scopeName: "NotBestEffort", operator: "Exists" }, only({ memory: "1Mi" }))).toBe(true);
    expect(qosClass(only({ cpu: "1", memory: "1Gi" }, { cpu: "1000m", memory: "1024Mi" }).spec)).toBe("Guaranteed");
    expect(qosClass(only({ cpu: "1", memory: "1Gi" }, { cpu: "2", memory: "1Gi" }).spec)).toBe("Burstable");
  });

  it("tells terminating, best-effort and cross-namespace affinity pods", () => {
    expect(podMatchesScope({ scopeName: "Terminating", operator: "Exists" }, { spec: { activeDeadlineSeconds: 0 } })).toBe(true);
    expect(podMatchesScope({ scopeName: "NotTerminating", operator: "Exists" }, plain)).toBe(true);
    expect(podMatchesScope({ scopeName: "BestEffort", operator: "Exists" }, gold)).toBe(true);
    expect(podMatchesScope({ scopeName: "NotBestEffort", operator: "Exists" }, plain)).toBe(true);
    const affinity = (term: Record<string, unknown>): Pod => ({
      spec: {
        affinity: {
          podAntiAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: { topologyKey: "zone", ...term } }],
          },
        },
      },
    });
    expect(podMatchesScope({ scopeName: "CrossNamespacePodAffinity", operator: "Exists" }, affinity({ namespaces: ["other"] }))).toBe(true);
    expect(podMatchesScope({ scopeName: "CrossNamespacePodAffinity", operator: "Exists" }, affinity({ namespaceSelector: {} }))).toBe(true);
    expect(podMatchesScope({ scopeName: "CrossNamespacePodAffinity", operator: "Exists" }, affinity({}))).toBe(false);
  });
});

describe("service and claim usage", () => {
  it("counts node ports of NodePort and LoadBalancer services unless a load balancer allocates none", () => {
    const ports = [{ port: 80 }, { port: 443 }];
    expect(texts(serviceQuotaUsage({ spec: { type: "NodePort", ports } }))).toEqual({
      services: "1",
      "count/services": "1",
      "services.nodeports": "2",
    });
    expect(texts(serviceQuotaUsage({ spec: { type: "LoadBalancer", ports } }))).toEqual({
      services: "1",
      "count/services": "1",
      "services.nodeports": "2",
      "services.loadbalancers": "1",
    });
    expect(texts(serviceQuotaUsage({ spec: { type: "LoadBalancer", ports, allocateLoadBalancerNodePorts: false } }))).toEqual({
      services: "1",
      "count/services": "1",
      "services.loadbalancers": "1",
    });
    expect(texts(serviceQuotaUsage({ spec: { type: "ClusterIP", ports } }))).toEqual({ services: "1", "count/services": "1" });
  });

  it("counts a claim's storage, the larger of requested and allocated, also under its storage class", () => {
    expect(
      texts(
        claimQuotaUsage({
          spec: { storageClassName: "gold", resources: { requests: { storage: "1Gi" } } },
          status: { allocatedResources: { storage: "2Gi" } },
        }),
      ),
    ).toEqual({
      "count/persistentvolumeclaims": "1",
      persistentvolumeclaims: "1",
      "gold.storageclass.storage.k8s.io/persistentvolumeclaims": "1",
      "requests.storage": "2Gi",
      "gold.storageclass.storage.k8s.io/requests.storage": "2Gi",
    });
  });
});
