import type { KubeObject } from "@kubekit/generic-controlplane";
import { ApiError, KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../../test/kubectl.js";
import { startSimCluster, type SimCluster } from "../cluster.js";
import { ENDPOINT_SLICES, type EndpointSlice } from "../resources/endpoint-slices.js";
import { ENDPOINTS, type Endpoints } from "../resources/endpoints.js";
import { PODS, SERVICES } from "../refs.js";

let cluster: SimCluster;
let client: KubeClient;
let namespaceCounter = 0;

beforeAll(async () => {
  // Deleted pods stay terminating (and serving) for 5 s: long enough to observe them in the slices and Endpoints on a loaded machine.
  cluster = await startSimCluster({
    nodes: [{ name: "n1", labels: { "topology.kubernetes.io/zone": "zone-a" } }, { name: "n2" }],
    podShutdownMs: 5_000,
  });
  client = new KubeClient({ server: cluster.url });
});

afterAll(async () => {
  client?.close();
  await cluster?.close();
});

async function namespace(): Promise<string> {
  const name = `eps-${++namespaceCounter}`;
  await client.create({ group: "", version: "v1", resource: "namespaces", namespaced: false }, undefined, { metadata: { name } });
  return name;
}

const podWith = (name: string, labels: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  metadata: { name, labels },
  spec: {
    containers: [
      {
        name: "c",
        image: "agnhost",
        ports: [
          { name: "http", containerPort: 8080 },
          { name: "dns", containerPort: 5353, protocol: "UDP" },
        ],
      },
    ],
    ...extra,
  },
});

async function slicesOf(ns: string, service: string): Promise<EndpointSlice[]> {
  return (await client.list<EndpointSlice>(ENDPOINT_SLICES, ns, { labelSelector: `kubernetes.io/service-name=${service}` })).items;
}

async function gone(promise: Promise<unknown>): Promise<boolean> {
  try {
    await promise;
    return false;
  } catch (error) {
    if (error instanceof ApiError && error.code === 404) return true;
    throw error;
  }
}

async function runningPod(ns: string, body: KubeObject): Promise<KubeObject & { status: { podIP: string }; metadata: { uid: string } }> {
  await client.create(PODS, ns, body);
  return eventually(`pod ${body.metadata?.name} running`, async () => {
    const pod = await client.get<KubeObject & { status: { phase?: string; podIP: string }; metadata: { uid: string } }>(
      PODS,
      ns,
      body.metadata?.name ?? "",
    );
    return pod.status.phase === "Running" ? pod : undefined;
  });
}

// Ported from test/e2e/network/endpointslice.go.
describe("endpoints and endpointslice controllers", () => {
  it("should create and delete Endpoints and EndpointSlices for a Service with a selector specified", async () => {
    const ns = await namespace();
    const service = await client.create(SERVICES, ns, {
      metadata: { name: "example-empty-selector", labels: { team: "a" } },
      spec: { selector: { "does-not": "match-anything" }, ports: [{ name: "example", port: 80, protocol: "TCP" }] },
    });
    const endpoints = await eventually("the Endpoints", () => client.get<Endpoints>(ENDPOINTS, ns, "example-empty-selector"));
    expect(endpoints.subsets ?? []).toEqual([]);
    expect(endpoints.metadata?.labels).toEqual({ team: "a" });
    const [placeholder] = await eventually("a placeholder slice", async () =>
      (await slicesOf(ns, "example-empty-selector")).length === 1 ? slicesOf(ns, "example-empty-selector") : undefined,
    );
    expect(placeholder).toMatchObject({ addressType: "IPv4", endpoints: [], ports: [] });
    expect(placeholder!.metadata?.name).toMatch(/^example-empty-selector-[a-z0-9]{5}$/);
    expect(placeholder!.metadata?.labels).toEqual({
      team: "a",
      "kubernetes.io/service-name": "example-empty-selector",
      "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
    });
    expect(placeholder!.metadata?.ownerReferences).toEqual([
      {
        apiVersion: "v1",
        kind: "Service",
        name: "example-empty-selector",
        uid: service.metadata?.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);

    await client.delete(SERVICES, ns, "example-empty-selector");
    await eventually("the Endpoints to go", async () =>
      (await gone(client.get(ENDPOINTS, ns, "example-empty-selector"))) ? true : undefined,
    );
    await eventually("the slices to go", async () => ((await slicesOf(ns, "example-empty-selector")).length === 0 ? true : undefined));
  });

  it("should create Endpoints and EndpointSlices for Pods matching a Service, resolving named ports", async () => {
    const ns = await namespace();
    const pod1 = await runningPod(ns, podWith("pod1", { label1: "value1" }, { nodeName: "n1" }));
    const pod2 = await runningPod(
      ns,
      podWith("pod2", { label1: "value1" }, { nodeName: "n2", hostname: "pod2", subdomain: "example-named-port" }),
    );
    await client.create(SERVICES, ns, {
      metadata: { name: "example-int-port" },
      spec: { selector: { label1: "value1" }, ports: [{ name: "example", port: 80, targetPort: 3000 }] },
    });
    await client.create(SERVICES, ns, {
      metadata: { name: "example-named-port" },
      spec: {
        selector: { label1: "value1" },
        ports: [
          { name: "http", port: 80, targetPort: "http" },
          { name: "dns", port: 53, protocol: "UDP", targetPort: "dns" },
        ],
      },
    });
    await client.create(SERVICES, ns, {
      metadata: { name: "example-no-match" },
      spec: { selector: { label1: "value1" }, ports: [{ name: "example-no-match", port: 80, targetPort: "nope" }] },
    });

    const named = await eventually("two endpoints of example-named-port", async () => {
      const slices = await slicesOf(ns, "example-named-port");
      return slices.length === 1 && slices[0]!.endpoints?.length === 2 ? slices[0] : undefined;
    });
    expect(named.ports).toEqual([
      { name: "http", port: 8080, protocol: "TCP" },
      { name: "dns", port: 5353, protocol: "UDP" },
    ]);
    const byName = new Map((named.endpoints ?? []).map((e) => [e.targetRef?.name, e]));
    expect(byName.get("pod1")).toEqual({
      addresses: [pod1.status.podIP],
      conditions: { ready: true, serving: true, terminating: false },
      targetRef: { kind: "Pod", namespace: ns, name: "pod1", uid: pod1.metadata.uid },
      nodeName: "n1",
      zone: "zone-a",
    });
    expect(byName.get("pod2")).toMatchObject({ addresses: [pod2.status.podIP], nodeName: "n2", hostname: "pod2" });
    expect(byName.get("pod2")!.zone).toBeUndefined();

    const intPort = await eventually("example-int-port's slice", async () =>
      (await slicesOf(ns, "example-int-port"))[0]?.endpoints?.length === 2 ? (await slicesOf(ns, "example-int-port"))[0] : undefined,
    );
    expect(intPort.ports).toEqual([{ name: "example", port: 3000, protocol: "TCP" }]);
    // A named port no pod declares: the pods stay, with no ports.
    const noMatch = await eventually("example-no-match's slice", async () =>
      (await slicesOf(ns, "example-no-match"))[0]?.endpoints?.length === 2 ? (await slicesOf(ns, "example-no-match"))[0] : undefined,
    );
    expect(noMatch.ports).toEqual([]);

    const endpoints = await eventually("Endpoints with both pods", async () => {
      const ep = await client.get<Endpoints>(ENDPOINTS, ns, "example-named-port");
      return ep.subsets?.[0]?.addresses?.length === 2 ? ep : undefined;
    });
    expect(endpoints.subsets).toHaveLength(1);
    expect(endpoints.subsets![0]!.ports).toEqual([
      { name: "dns", port: 5353, protocol: "UDP" },
      { name: "http", port: 8080, protocol: "TCP" },
    ]);
    expect(endpoints.subsets![0]!.addresses!.map((a) => a.targetRef?.name).sort()).toEqual(["pod1", "pod2"]);
    expect(endpoints.subsets![0]!.addresses!.find((a) => a.targetRef?.name === "pod2")).toMatchObject({ hostname: "pod2", nodeName: "n2" });
    // The no-match service's Endpoints have no subset (no resolvable port).
    const noMatchEndpoints = await eventually("example-no-match's Endpoints", () =>
      client.get<Endpoints>(ENDPOINTS, ns, "example-no-match"),
    );
    expect(noMatchEndpoints.subsets ?? []).toEqual([]);
  });

  it("marks terminating pods terminating, not ready but serving, and only lists them in Endpoints when publishNotReadyAddresses", async () => {
    const ns = await namespace();
    await runningPod(ns, {
      ...podWith("held", { app: "t" }),
      metadata: { name: "held", labels: { app: "t" }, finalizers: ["example.com/hold"] },
    });
    await client.create(SERVICES, ns, {
      metadata: { name: "plain" },
      spec: { selector: { app: "t" }, ports: [{ port: 80, targetPort: "http" }] },
    });
    await client.create(SERVICES, ns, {
      metadata: { name: "publish" },
      spec: { selector: { app: "t" }, publishNotReadyAddresses: true, ports: [{ port: 80, targetPort: "http" }] },
    });
    await eventually("both slices list the pod", async () =>
      (await slicesOf(ns, "plain"))[0]?.endpoints?.length === 1 && (await slicesOf(ns, "publish"))[0]?.endpoints?.length === 1
        ? true
        : undefined,
    );

    await client.delete(PODS, ns, "held");
    const terminating = await eventually("a terminating endpoint", async () => {
      const endpoint = (await slicesOf(ns, "plain"))[0]?.endpoints?.[0];
      return endpoint?.conditions?.terminating === true ? endpoint : undefined;
    });
    expect(terminating.conditions).toEqual({ ready: false, serving: true, terminating: true });
    const published = await eventually("the publishing service's endpoint", async () => {
      const endpoint = (await slicesOf(ns, "publish"))[0]?.endpoints?.[0];
      return endpoint?.conditions?.terminating === true ? endpoint : undefined;
    });
    expect(published.conditions).toEqual({ ready: true, serving: true, terminating: true });
    await eventually("the plain Endpoints drop the pod", async () =>
      ((await client.get<Endpoints>(ENDPOINTS, ns, "plain")).subsets ?? []).length === 0 ? true : undefined,
    );
    // The two services' Endpoints are synced one after the other: wait for the second, too.
    const publishing = await eventually(
      "the publishing Endpoints to list the pod",
      async () => (await client.get<Endpoints>(ENDPOINTS, ns, "publish")).subsets?.[0]?.addresses,
    );
    expect(publishing).toHaveLength(1);

    await client.patch(PODS, ns, "held", { metadata: { finalizers: null } });
    await eventually("the slice to become a placeholder", async () =>
      (await slicesOf(ns, "plain"))[0]?.endpoints?.length === 0 ? true : undefined,
    );
  });

  it("lists not-ready pods as not ready, and leaves services without a selector alone", async () => {
    const ns = await namespace();
    // A running kubelet reasserts its pods' Ready condition; on a node whose kubelet is stopped, the
    // condition stays as written.
    const quiet = await cluster.addNode({ name: "quiet" });
    const body = podWith("p", { app: "r" });
    const pod = await runningPod(ns, { ...body, spec: { ...(body as { spec: object }).spec, nodeName: quiet } });
    await cluster.stopNode(quiet);
    await client.patch(
      PODS,
      ns,
      "p",
      { status: { conditions: [{ type: "Ready", status: "False" }] } },
      "application/strategic-merge-patch+json",
      "status",
    );
    await client.create(SERVICES, ns, { metadata: { name: "svc" }, spec: { selector: { app: "r" }, ports: [{ port: 80 }] } });
    const endpoints = await eventually("a not-ready address", async () => {
      const ep = await client.get<Endpoints>(ENDPOINTS, ns, "svc");
      return ep.subsets?.[0]?.notReadyAddresses?.length === 1 ? ep : undefined;
    });
    expect(endpoints.subsets![0]!.addresses).toBeUndefined();
    expect(endpoints.subsets![0]!.notReadyAddresses![0]!.ip).toBe(pod.status.podIP);
    const endpoint = await eventually("a not-ready endpoint", async () => (await slicesOf(ns, "svc"))[0]?.endpoints?.[0]);
    expect(endpoint.conditions).toEqual({ ready: false, serving: false, terminating: false });

    // A service without a selector: what its owner writes stays as written.
    await client.create(SERVICES, ns, { metadata: { name: "manual" }, spec: { ports: [{ port: 80 }] } });
    await client.create(ENDPOINTS, ns, {
      metadata: { name: "manual" },
      subsets: [{ addresses: [{ ip: "10.1.2.3" }], ports: [{ port: 80 }] }],
    });
    await client.create(ENDPOINT_SLICES, ns, {
      metadata: { name: "manual-1", labels: { "kubernetes.io/service-name": "manual" } },
      addressType: "IPv4",
      endpoints: [{ addresses: ["10.1.2.3"] }],
      ports: [{ port: 80 }],
    });
    // A change the controllers would react to for a selecting service.
    await client.patch(SERVICES, ns, "manual", { metadata: { labels: { touched: "yes" } } });
    await client.create(SERVICES, ns, { metadata: { name: "marker" }, spec: { selector: { app: "r" }, ports: [{ port: 81 }] } });
    await eventually("the marker service's slice", async () =>
      (await slicesOf(ns, "marker"))[0]?.endpoints?.length === 1 ? true : undefined,
    );
    expect((await client.get<Endpoints>(ENDPOINTS, ns, "manual")).subsets).toEqual([
      { addresses: [{ ip: "10.1.2.3" }], ports: [{ port: 80, protocol: "TCP" }] },
    ]);
    // The owner's slice stays as written; the EndpointSlice controller makes none (the mirroring controller mirrors the Endpoints).
    const manual = await slicesOf(ns, "manual");
    expect(
      manual
        .filter((s) => s.metadata?.labels?.["endpointslice.kubernetes.io/managed-by"] !== "endpointslicemirroring-controller.k8s.io")
        .map((s) => s.metadata?.name),
    ).toEqual(["manual-1"]);
    expect(manual.some((s) => s.metadata?.labels?.["endpointslice.kubernetes.io/managed-by"] === "endpointslice-controller.k8s.io")).toBe(
      false,
    );
    await cluster.removeNode(quiet);
  });

  it("should support a Service with many endpoints spread over slices of at most 100", { timeout: 60_000 }, async () => {
    const ns = await namespace();
    await client.create(SERVICES, ns, { metadata: { name: "big" }, spec: { selector: { app: "big" }, ports: [{ port: 80 }] } });
    await Promise.all(
      Array.from({ length: 120 }, (_, i) =>
        client.create(PODS, ns, podWith(`big-${i}`, { app: "big" }, { nodeName: i % 2 === 0 ? "n1" : "n2" })),
      ),
    );
    const slices = await eventually(
      "120 endpoints",
      async () => {
        const all = await slicesOf(ns, "big");
        return all.reduce((n, s) => n + (s.endpoints?.length ?? 0), 0) === 120 ? all : undefined;
      },
      45_000,
    );
    expect(slices.map((s) => s.endpoints?.length ?? 0).sort((a, b) => b - a)).toEqual([100, 20]);
    const addresses = slices.flatMap((s) => (s.endpoints ?? []).map((e) => e.addresses[0]));
    expect(new Set(addresses).size).toBe(120);
  });

  it("serves EndpointSlice API operations: create, get, list, watch, patch, update, delete", async () => {
    const ns = await namespace();
    const body = {
      metadata: { name: "e2e-example-ing", labels: { "e2e-test": "x" } },
      addressType: "IPv4",
      endpoints: [{ addresses: ["1.2.3.4", "5.6.7.8"] }],
      ports: [],
    };
    const events: string[] = [];
    const watch = await client.watch(
      `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`,
      { labelSelector: "e2e-test=x" },
      (event) => events.push(event.type),
    );
    try {
      await client.create(ENDPOINT_SLICES, ns, body);
      await client.create(ENDPOINT_SLICES, ns, { ...body, metadata: { ...body.metadata, name: "e2e-example-ing-2" } });
      expect((await client.get<EndpointSlice>(ENDPOINT_SLICES, ns, "e2e-example-ing")).endpoints?.[0]?.addresses).toEqual([
        "1.2.3.4",
        "5.6.7.8",
      ]);
      expect((await client.list(ENDPOINT_SLICES, ns, { labelSelector: "e2e-test=x" })).items).toHaveLength(2);
      const patched = await client.patch<EndpointSlice>(ENDPOINT_SLICES, ns, "e2e-example-ing", {
        metadata: { annotations: { patched: "true" } },
      });
      expect(patched.metadata?.annotations).toEqual({ patched: "true" });
      const updated = await client.update<EndpointSlice>(ENDPOINT_SLICES, ns, { ...patched, endpoints: [{ addresses: ["9.9.9.9"] }] });
      expect(updated.endpoints).toEqual([{ addresses: ["9.9.9.9"] }]);
      await client.delete(ENDPOINT_SLICES, ns, "e2e-example-ing");
      await client.deleteCollection(ENDPOINT_SLICES, ns, {}, { labelSelector: "e2e-test=x" });
      expect((await client.list(ENDPOINT_SLICES, ns, { labelSelector: "e2e-test=x" })).items).toHaveLength(0);
      await eventually("the watch to see every change", () =>
        Promise.resolve(events.filter((e) => e === "DELETED").length === 2 ? true : undefined),
      );
      expect(events.filter((e) => e === "ADDED")).toHaveLength(2);
      expect(events.filter((e) => e === "MODIFIED")).toHaveLength(2);
    } finally {
      watch.stop();
      await watch.done;
    }
  });
});
