// Ports of test/e2e/network/endpointslice.go, EndpointSlice "should have Endpoints and
// EndpointSlices pointing to API Server", and test/e2e/network/service.go, Services "should
// provide secure master service": the API server publishes itself as default/kubernetes.
import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../test/kubectl.js";
import { httpGet } from "../test/traffic-client.js";
import { startSimCluster, type SimCluster } from "./cluster.js";
import { ENDPOINT_SLICES, type EndpointSlice } from "./resources/endpoint-slices.js";
import { ENDPOINTS, type Endpoints } from "./resources/endpoints.js";
import type { Service } from "./resources/services.js";
import { SERVICES } from "./refs.js";

let cluster: SimCluster | undefined;
let client: KubeClient | undefined;
afterEach(async () => {
  client?.close();
  client = undefined;
  await cluster?.close();
  cluster = undefined;
});

/** endpointSlicesEqual: the Endpoints' addresses and ports are the IPv4 slices'. */
function endpointSlicesEqual(endpoints: Endpoints, slices: readonly EndpointSlice[]): boolean {
  const epAddresses = new Set((endpoints.subsets ?? []).flatMap((s) => (s.addresses ?? []).map((a) => a.ip)));
  const epPorts = new Set((endpoints.subsets ?? []).flatMap((s) => (s.ports ?? []).map((p) => p.port)));
  const ofType = slices.filter((s) => s.addressType === "IPv4");
  const sliceAddresses = new Set(ofType.flatMap((s) => (s.endpoints ?? []).flatMap((e) => e.addresses)));
  const slicePorts = new Set(ofType.flatMap((s) => (s.ports ?? []).map((p) => p.port)));
  const same = <T>(a: Set<T>, b: Set<T>) => a.size === b.size && [...a].every((x) => b.has(x));
  return same(epAddresses, sliceAddresses) && same(epPorts, slicePorts);
}

describe("the kubernetes Service", { timeout: 20_000 }, () => {
  it("should provide secure master service", async () => {
    cluster = await startSimCluster({ nodes: 1 });
    client = new KubeClient({ server: cluster.url });
    const service = await client.get<Service>(SERVICES, "default", "kubernetes");
    // As kube-apiserver makes it: the first address of the service range, 443 to the server's port.
    expect(service.metadata?.labels).toEqual({ component: "apiserver", provider: "kubernetes" });
    expect(service.spec).toMatchObject({
      type: "ClusterIP",
      clusterIP: "10.96.0.1",
      clusterIPs: ["10.96.0.1"],
      sessionAffinity: "None",
      ports: [{ name: "https", port: 443, protocol: "TCP", targetPort: Number(new URL(cluster.url).port) }],
    });
  });

  it("should have Endpoints and EndpointSlices pointing to API Server", async () => {
    cluster = await startSimCluster({ nodes: 1 });
    client = new KubeClient({ server: cluster.url });
    const cs = client;
    const namespace = "default";
    const name = "kubernetes";
    await cs.get(SERVICES, namespace, name);
    const endpoints = await cs.get<Endpoints>(ENDPOINTS, namespace, name);
    expect(endpoints.subsets?.length ?? 0).toBeGreaterThan(0);
    const slices = (await cs.list<EndpointSlice>(ENDPOINT_SLICES, namespace, { labelSelector: `kubernetes.io/service-name=${name}` }))
      .items;
    expect(slices.length).toBeGreaterThan(0);
    expect(endpointSlicesEqual(endpoints, slices)).toBe(true);
    // The server's own address and port; the mirroring controller leaves these alone.
    const server = new URL(cluster.url);
    expect(endpoints.subsets).toEqual([
      { addresses: [{ ip: server.hostname }], ports: [{ name: "https", port: Number(server.port), protocol: "TCP" }] },
    ]);
    expect(endpoints.metadata?.labels).toEqual({ "endpointslice.kubernetes.io/skip-mirror": "true" });
    expect(slices.map((s) => s.metadata?.name)).toEqual(["kubernetes"]);
  });

  it("carries traffic to the API server in traffic mode", async () => {
    cluster = await startSimCluster({ nodes: 1, traffic: true });
    client = new KubeClient({ server: cluster.url });
    const service = await client.get<Service>(SERVICES, "default", "kubernetes");
    const clusterIP = service.spec?.clusterIP ?? "";
    expect(clusterIP.endsWith(".0.1")).toBe(true);
    const scheme = new URL(cluster.url).protocol;
    expect(scheme).toBe("http:");
    const answer = await eventually("the API server through kubernetes.default's ClusterIP", async () => {
      const response = await httpGet(clusterIP, 443, "/version").catch(() => undefined);
      return response?.status === 200 ? response : undefined;
    });
    expect(JSON.parse(answer.body)).toHaveProperty("gitVersion");
  });
});
