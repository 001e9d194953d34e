/**
 * Ports, with upstream's objects and assertions, of kubernetes/kubernetes
 * test/e2e/apimachinery/aggregated_discovery.go (conformance): "should support raw aggregated
 * discovery endpoint Accept headers", "should support raw aggregated discovery request for CRDs",
 * "should support aggregated discovery interface" and "should support aggregated discovery
 * interface for CRDs", against a simulated cluster (upstream's expected resources include
 * ingresses, runtimeclasses, csinodes and both HorizontalPodAutoscaler versions). Plus each new
 * type's entry as a 1.32 kube-apiserver lists it, autoscaling/v1 and v2 serving the same objects,
 * and kubectl 1.32's `autoscale` (a protobuf autoscaling/v1 body) and `get hpa`.
 */
import { KubeClient, type ResourceRef } from "@kubekit/generic-controlplane/controllers";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimCluster, type SimCluster } from "../src/index.js";
import type { HorizontalPodAutoscaler, HorizontalPodAutoscalerV1 } from "../src/resources/hpa-conversion.js";
import { eventually, kubectl } from "./kubectl.js";

const HPA_V1: ResourceRef = { group: "autoscaling", version: "v1", resource: "horizontalpodautoscalers", namespaced: true };
const HPA_V2: ResourceRef = { group: "autoscaling", version: "v2", resource: "horizontalpodautoscalers", namespaced: true };
const CRDS: ResourceRef = { group: "apiextensions.k8s.io", version: "v1", resource: "customresourcedefinitions", namespaced: false };
const aggregatedAccept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

interface DiscoveryResource {
  resource: string;
  scope: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  singularResource: string;
  responseKind: { group: string; version: string; kind: string };
  subresources?: Array<{ subresource: string; verbs: string[] }>;
}
interface GroupDiscoveryList {
  kind: string;
  items: Array<{ metadata: { name?: string }; versions: Array<{ version: string; resources: DiscoveryResource[] }> }>;
}

const expectedLegacyGVR = [{ group: "", version: "v1", resource: "namespaces" }];
const expectedGVR = [
  { group: "admissionregistration.k8s.io", version: "v1", resource: "validatingwebhookconfigurations" },
  { group: "apiextensions.k8s.io", version: "v1", resource: "customresourcedefinitions" },
  { group: "apiregistration.k8s.io", version: "v1", resource: "apiservices" },
  { group: "apps", version: "v1", resource: "deployments" },
  { group: "authentication.k8s.io", version: "v1", resource: "tokenreviews" },
  { group: "authorization.k8s.io", version: "v1", resource: "selfsubjectaccessreviews" },
  { group: "autoscaling", version: "v1", resource: "horizontalpodautoscalers" },
  { group: "autoscaling", version: "v2", resource: "horizontalpodautoscalers" },
  { group: "batch", version: "v1", resource: "jobs" },
  { group: "certificates.k8s.io", version: "v1", resource: "certificatesigningrequests" },
  { group: "coordination.k8s.io", version: "v1", resource: "leases" },
  { group: "discovery.k8s.io", version: "v1", resource: "endpointslices" },
  { group: "events.k8s.io", version: "v1", resource: "events" },
  { group: "networking.k8s.io", version: "v1", resource: "ingresses" },
  { group: "node.k8s.io", version: "v1", resource: "runtimeclasses" },
  { group: "policy", version: "v1", resource: "poddisruptionbudgets" },
  { group: "scheduling.k8s.io", version: "v1", resource: "priorityclasses" },
  { group: "storage.k8s.io", version: "v1", resource: "csinodes" },
];
type GVR = (typeof expectedGVR)[number];

let cluster: SimCluster;
let client: KubeClient;
let dir: string;
let kubeconfig: string;

beforeAll(async () => {
  cluster = await startSimCluster({ nodes: 1 });
  client = new KubeClient({ server: cluster.url });
  dir = await mkdtemp(join(tmpdir(), "sim-autoscaling-"));
  kubeconfig = join(dir, "kubeconfig");
  await cluster.writeKubeconfig(kubeconfig);
}, 60_000);
afterAll(async () => {
  client.close();
  await cluster.close();
  await rm(dir, { recursive: true, force: true });
});

async function aggregated(path: "/api" | "/apis"): Promise<GroupDiscoveryList> {
  const response = await fetch(new URL(path, cluster.url), { headers: { accept: aggregatedAccept } });
  expect(response.status).toBe(200);
  return (await response.json()) as GroupDiscoveryList;
}

/** isGVRPresentAPIDiscovery */
function isGVRPresentAPIDiscovery(list: GroupDiscoveryList, gvr: GVR): boolean {
  return list.items.some(
    (g) =>
      (g.metadata.name ?? "") === gvr.group &&
      g.versions.some((v) => v.version === gvr.version && v.resources.some((r) => r.resource === gvr.resource)),
  );
}

function entry(list: GroupDiscoveryList, group: string, version: string, resource: string): DiscoveryResource | undefined {
  return list.items
    .find((g) => (g.metadata.name ?? "") === group)
    ?.versions.find((v) => v.version === version)
    ?.resources.find((r) => r.resource === resource);
}

/** GroupsAndMaybeResources of client-go's aggregated discovery client: groups and resources by group version, from /api and /apis. */
async function groupsAndResources(): Promise<{
  groups: Array<{ name: string; versions: Array<{ version: string }> }>;
  resourcesByGV: Map<string, string[]>;
}> {
  const items = [...(await aggregated("/api")).items, ...(await aggregated("/apis")).items];
  const resourcesByGV = new Map<string, string[]>();
  for (const group of items) {
    for (const version of group.versions)
      resourcesByGV.set(
        group.metadata.name ? `${group.metadata.name}/${version.version}` : version.version,
        version.resources.map((r) => r.resource),
      );
  }
  return {
    groups: items.map((g) => ({ name: g.metadata.name ?? "", versions: g.versions.map((v) => ({ version: v.version })) })),
    resourcesByGV,
  };
}

const gv = (gvr: GVR) => (gvr.group === "" ? gvr.version : `${gvr.group}/${gvr.version}`);

async function createTestCRD(): Promise<{ gvr: GVR; name: string }> {
  const resourceName = "testcrd";
  const groupName = `group${Math.random().toString(36).slice(2, 7)}.example.com`;
  const name = `${resourceName}s.${groupName}`;
  await client.create(CRDS, undefined, {
    metadata: { name },
    spec: {
      group: groupName,
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
        },
      ],
      names: { plural: `${resourceName}s`, singular: resourceName, kind: resourceName, listKind: `${resourceName}List` },
      scope: "Namespaced",
    },
  });
  return { gvr: { group: groupName, version: "v1", resource: `${resourceName}s` }, name };
}

describe("[sig-api-machinery] AggregatedDiscovery (test/e2e/apimachinery/aggregated_discovery.go)", { timeout: 60_000 }, () => {
  it("should support raw aggregated discovery endpoint Accept headers", async () => {
    const groupList = await aggregated("/apis");
    for (const gvr of expectedGVR)
      expect(
        isGVRPresentAPIDiscovery(groupList, gvr),
        `Expected gvr ${gvr.group} ${gvr.version} ${gvr.resource} to exist in discovery`,
      ).toBe(true);
    const groupListLegacy = await aggregated("/api");
    for (const gvr of expectedLegacyGVR)
      expect(
        isGVRPresentAPIDiscovery(groupListLegacy, gvr),
        `Expected legacy gvr api ${gvr.version} ${gvr.resource} to exist in discovery`,
      ).toBe(true);
  });

  it("should support raw aggregated discovery request for CRDs", async () => {
    const { gvr, name } = await createTestCRD();
    try {
      await eventually(
        "the CustomResourceDefinition GVR in discovery",
        async () => (isGVRPresentAPIDiscovery(await aggregated("/apis"), gvr) ? true : undefined),
        30_000,
      );
    } finally {
      await client.delete(CRDS, undefined, name);
    }
  });

  it("should support aggregated discovery interface", async () => {
    const { groups, resourcesByGV } = await groupsAndResources();
    const expectedCombinedGVR = [...expectedGVR, ...expectedLegacyGVR];
    for (const gvr of expectedCombinedGVR)
      expect(resourcesByGV.get(gv(gvr)) ?? [], `Expected ${gv(gvr)} ${gvr.resource} to be present`).toContain(gvr.resource);
    for (const gvr of expectedCombinedGVR)
      expect(
        groups.some((g) => g.name === gvr.group && g.versions.some((v) => v.version === gvr.version)),
        `Expected ${gv(gvr)} to be present`,
      ).toBe(true);
  });

  it("should support aggregated discovery interface for CRDs", async () => {
    const { gvr, name } = await createTestCRD();
    try {
      await eventually(
        "the CustomResourceDefinition GVR in discovery",
        async () => ((await groupsAndResources()).resourcesByGV.get(gv(gvr))?.includes(gvr.resource) ? true : undefined),
        30_000,
      );
    } finally {
      await client.delete(CRDS, undefined, name);
    }
  });

  it("lists the API-only types with a 1.32 kube-apiserver's scope, verbs, short names, categories and subresources", async () => {
    const list = await aggregated("/apis");
    const standard = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];
    const expected: Array<[string, string, string, Partial<DiscoveryResource>]> = [
      [
        "networking.k8s.io",
        "v1",
        "ingresses",
        {
          scope: "Namespaced",
          shortNames: ["ing"],
          singularResource: "ingress",
          subresources: [{ subresource: "status", verbs: ["get", "patch", "update"] }],
        },
      ],
      ["networking.k8s.io", "v1", "ingressclasses", { scope: "Cluster", singularResource: "ingressclass" }],
      ["networking.k8s.io", "v1", "networkpolicies", { scope: "Namespaced", shortNames: ["netpol"], singularResource: "networkpolicy" }],
      ["node.k8s.io", "v1", "runtimeclasses", { scope: "Cluster", singularResource: "runtimeclass" }],
      ["storage.k8s.io", "v1", "csidrivers", { scope: "Cluster", singularResource: "csidriver" }],
      ["storage.k8s.io", "v1", "csinodes", { scope: "Cluster", singularResource: "csinode" }],
      [
        "storage.k8s.io",
        "v1",
        "volumeattachments",
        {
          scope: "Cluster",
          singularResource: "volumeattachment",
          subresources: [{ subresource: "status", verbs: ["get", "patch", "update"] }],
        },
      ],
      [
        "autoscaling",
        "v2",
        "horizontalpodautoscalers",
        {
          scope: "Namespaced",
          shortNames: ["hpa"],
          categories: ["all"],
          singularResource: "horizontalpodautoscaler",
          subresources: [{ subresource: "status", verbs: ["get", "patch", "update"] }],
        },
      ],
      [
        "autoscaling",
        "v1",
        "horizontalpodautoscalers",
        {
          scope: "Namespaced",
          shortNames: ["hpa"],
          categories: ["all"],
          singularResource: "horizontalpodautoscaler",
          subresources: [{ subresource: "status", verbs: ["get", "patch", "update"] }],
        },
      ],
    ];
    for (const [group, version, resource, want] of expected) {
      const got = entry(list, group, version, resource);
      expect(got, `${group}/${version} ${resource}`).toMatchObject(want);
      expect([...(got?.verbs ?? [])].sort(), `${resource} verbs`).toEqual(standard);
      if (want.shortNames === undefined) expect(got?.shortNames ?? []).toEqual([]);
      if (want.categories === undefined) expect(got?.categories ?? []).toEqual([]);
      if (want.subresources === undefined) expect(got?.subresources ?? []).toEqual([]);
    }
    // autoscaling/v2 is the preferred version, listed first.
    expect(list.items.find((g) => g.metadata.name === "autoscaling")?.versions.map((v) => v.version)).toEqual(["v2", "v1"]);
  });
});

describe("HorizontalPodAutoscaler (autoscaling/v1 and v2, no metrics pipeline)", { timeout: 30_000 }, () => {
  it("kubectl 1.32 `autoscale` creates an autoscaling/v1 object that `get hpa` lists with upstream's columns", async () => {
    await kubectl(kubeconfig, ["create", "namespace", "hpa-kubectl"]);
    expect(
      (await kubectl(kubeconfig, ["create", "deployment", "web", "--image=registry.k8s.io/pause:3.10", "-n", "hpa-kubectl"])).code,
    ).toBe(0);
    const created = await kubectl(kubeconfig, ["autoscale", "deployment", "web", "--max=5", "--cpu-percent=80", "-n", "hpa-kubectl"]);
    expect(created).toMatchObject({ code: 0, stdout: "horizontalpodautoscaler.autoscaling/web autoscaled\n" });
    const table = await kubectl(kubeconfig, ["get", "hpa", "-n", "hpa-kubectl"]);
    expect(table.stdout).toMatch(
      /^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE\nweb\s+Deployment\/web\s+cpu: <unknown>\/80%\s+1\s+5\s+0\s+\S+\n$/,
    );
    const v1 = await client.get<HorizontalPodAutoscalerV1>(HPA_V1, "hpa-kubectl", "web");
    expect(v1.spec).toMatchObject({
      minReplicas: 1,
      maxReplicas: 5,
      targetCPUUtilizationPercentage: 80,
      scaleTargetRef: { kind: "Deployment", name: "web" },
    });
    expect(v1.status).toEqual({ currentReplicas: 0, desiredReplicas: 0 });
  });

  it("serves the same objects as v1 and v2, converting the CPU target and keeping the rest in v1's annotations", async () => {
    const ns = "hpa-versions";
    await kubectl(kubeconfig, ["create", "namespace", ns]);
    const fromV1 = await client.create<HorizontalPodAutoscalerV1>(HPA_V1, ns, {
      metadata: { name: "from-v1" },
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
        maxReplicas: 3,
        targetCPUUtilizationPercentage: 50,
      },
    });
    expect(fromV1.apiVersion).toBe("autoscaling/v1");
    const asV2 = await client.get<HorizontalPodAutoscaler>(HPA_V2, ns, "from-v1");
    expect(asV2.apiVersion).toBe("autoscaling/v2");
    expect(asV2.spec?.metrics).toEqual([
      { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } } },
    ]);
    expect(asV2.metadata?.annotations).toBeUndefined();

    const memory = { type: "Resource", resource: { name: "memory", target: { type: "AverageValue", averageValue: "500Mi" } } };
    const behavior = { scaleDown: { stabilizationWindowSeconds: 60 } };
    await client.create(HPA_V2, ns, {
      metadata: { name: "from-v2" },
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
        minReplicas: 2,
        maxReplicas: 4,
        metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 70 } } }, memory],
        behavior,
      },
    });
    const asV1 = await client.get<HorizontalPodAutoscalerV1>(HPA_V1, ns, "from-v2");
    expect(asV1.spec?.targetCPUUtilizationPercentage).toBe(70);
    expect(JSON.parse(asV1.metadata?.annotations?.["autoscaling.alpha.kubernetes.io/metrics"] ?? "null")).toEqual([memory]);
    // Defaulted behavior (SetDefaults_HorizontalPodAutoscalerBehavior) travels too.
    expect(JSON.parse(asV1.metadata?.annotations?.["autoscaling.alpha.kubernetes.io/behavior"] ?? "null")).toMatchObject({
      scaleDown: { stabilizationWindowSeconds: 60, selectPolicy: "Max" },
      scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: "Max" },
    });

    // A v1 update (here of maxReplicas) keeps what only v2 can say.
    asV1.spec!.maxReplicas = 6;
    await client.update(HPA_V1, ns, asV1);
    const again = await client.get<HorizontalPodAutoscaler>(HPA_V2, ns, "from-v2");
    expect(again.spec?.maxReplicas).toBe(6);
    expect(again.spec?.metrics).toEqual([
      { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 70 } } },
      memory,
    ]);
    expect(again.metadata?.annotations).toBeUndefined();

    const table = await kubectl(kubeconfig, ["get", "hpa", "from-v2", "-n", ns]);
    expect(table.stdout).toMatch(/from-v2\s+Deployment\/web\s+cpu: <unknown>\/70%, memory: <unknown>\/500Mi\s+2\s+6\s+0/);
  });

  it("refuses maxReplicas below minReplicas with upstream's field and message, through either version", async () => {
    const ns = "hpa-invalid";
    await kubectl(kubeconfig, ["create", "namespace", ns]);
    const body = {
      metadata: { name: "bad" },
      spec: { scaleTargetRef: { kind: "Deployment", name: "web" }, minReplicas: 3, maxReplicas: 2 },
    };
    await expect(client.create(HPA_V2, ns, body as HorizontalPodAutoscaler)).rejects.toThrow(
      "spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`",
    );
    await expect(client.create(HPA_V1, ns, { ...body, spec: { ...body.spec, targetCPUUtilizationPercentage: 0 } })).rejects.toThrow(
      "spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0",
    );
  });
});
