// Port of test/e2e/network/endpointslicemirroring.go, EndpointSliceMirroring "should mirror a
// custom Endpoints resource through create update and delete" (conformance: EndpointSlice
// Mirroring): a selectorless Service's own Endpoints get a mirrored EndpointSlice.
import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../../test/kubectl.js";
import { startSimCluster, type SimCluster } from "../cluster.js";
import { ENDPOINT_SLICES, type EndpointSlice } from "../resources/endpoint-slices.js";
import { ENDPOINTS, type Endpoints } from "../resources/endpoints.js";
import { SERVICES } from "../refs.js";

let cluster: SimCluster | undefined;
let client: KubeClient | undefined;
afterEach(async () => {
  client?.close();
  client = undefined;
  await cluster?.close();
  cluster = undefined;
});

describe("EndpointSliceMirroring", { timeout: 30_000 }, () => {
  it("should mirror a custom Endpoints resource through create update and delete", async () => {
    cluster = await startSimCluster({ nodes: 1 });
    client = new KubeClient({ server: cluster.url });
    const cs = client;
    const ns = "default";
    const svc = await cs.create(SERVICES, ns, {
      metadata: { name: "example-custom-endpoints" },
      spec: { ports: [{ name: "example", port: 80, protocol: "TCP" }] },
    });
    const svcName = svc.metadata?.name ?? "";
    const endpoints: Endpoints = { metadata: { name: svcName }, subsets: [{ ports: [{ port: 80 }], addresses: [{ ip: "10.1.2.3" }] }] };
    const slicesOf = async () =>
      (await cs.list<EndpointSlice>(ENDPOINT_SLICES, ns, { labelSelector: `kubernetes.io/service-name=${svcName}` })).items;
    /** The poll's checks: one port 80, one endpoint with the one address. */
    const mirrors = (slice: EndpointSlice, address: string) =>
      slice.ports?.length === 1 &&
      slice.ports[0]!.port === 80 &&
      slice.endpoints?.length === 1 &&
      slice.endpoints[0]!.addresses.length === 1 &&
      slice.endpoints[0]!.addresses[0] === address;

    // mirroring a new custom Endpoint
    await cs.create(ENDPOINTS, ns, endpoints);
    const created = await eventually("a mirrored EndpointSlice", async () => {
      const list = await slicesOf();
      if (list.length === 0) return undefined;
      for (const slice of list) if (!mirrors(slice, "10.1.2.3")) throw new Error(`unexpected slice ${JSON.stringify(slice)}`);
      return list;
    });
    expect(created[0]!.metadata?.labels).toEqual({
      "kubernetes.io/service-name": svcName,
      "endpointslice.kubernetes.io/managed-by": "endpointslicemirroring-controller.k8s.io",
    });
    expect(created[0]).toMatchObject({ addressType: "IPv4", endpoints: [{ addresses: ["10.1.2.3"], conditions: { ready: true } }] });

    // mirroring an update to a custom Endpoint
    endpoints.subsets![0]!.addresses = [{ ip: "10.2.3.4" }];
    const current = await cs.get<Endpoints>(ENDPOINTS, ns, svcName);
    await cs.update(ENDPOINTS, ns, { ...current, subsets: endpoints.subsets });
    await eventually("the mirrored EndpointSlice updated", async () => {
      const list = await slicesOf();
      return list.length === 1 && mirrors(list[0]!, "10.2.3.4") ? true : undefined;
    });

    // mirroring deletion of a custom Endpoint
    await cs.delete(ENDPOINTS, ns, svcName);
    await eventually("the mirrored EndpointSlices deleted", async () => ((await slicesOf()).length === 0 ? true : undefined));
  });

  it("mirrors nothing for Endpoints labelled skip-mirror", async () => {
    cluster = await startSimCluster({ nodes: 1 });
    client = new KubeClient({ server: cluster.url });
    const c = client;
    await c.create(SERVICES, "default", { metadata: { name: "skipped" }, spec: { ports: [{ port: 80 }] } });
    await c.create(ENDPOINTS, "default", {
      metadata: { name: "skipped", labels: { "endpointslice.kubernetes.io/skip-mirror": "true" } },
      subsets: [{ ports: [{ port: 80 }], addresses: [{ ip: "10.1.2.3" }] }],
    });
    await c.create(SERVICES, "default", { metadata: { name: "mirrored" }, spec: { ports: [{ port: 80 }] } });
    await c.create(ENDPOINTS, "default", {
      metadata: { name: "mirrored" },
      subsets: [{ ports: [{ port: 80 }], addresses: [{ ip: "10.1.2.4" }] }],
    });
    await eventually("the other service's slice", async () =>
      (await c.list<EndpointSlice>(ENDPOINT_SLICES, "default", { labelSelector: "kubernetes.io/service-name=mirrored" })).items.length === 1
        ? true
        : undefined,
    );
    expect(
      (await c.list<EndpointSlice>(ENDPOINT_SLICES, "default", { labelSelector: "kubernetes.io/service-name=skipped" })).items,
    ).toEqual([]);
  });
});
