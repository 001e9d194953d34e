// Port of test/e2e/network/service.go, Services "should find a service from listing all
// namespaces" (conformance: Service, find service from all namespaces): a list of services across
// all namespaces holds `default/kubernetes`.
import type { KubeObject } from "@kubekit/generic-controlplane";
import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterEach, describe, expect, it } from "vitest";
import { startSimCluster, type SimCluster } from "../cluster.js";
import { SERVICES } from "../refs.js";

let cluster: SimCluster | undefined;
let client: KubeClient | undefined;
afterEach(async () => {
  client?.close();
  client = undefined;
  await cluster?.close();
  cluster = undefined;
});

describe("Services", () => {
  it("should find a service from listing all namespaces", async () => {
    cluster = await startSimCluster({ nodes: 1 });
    client = new KubeClient({ server: cluster.url });
    // fetching services
    const svcs = await client.list<KubeObject>(SERVICES);
    const foundSvc = svcs.items.some((svc) => svc.metadata?.name === "kubernetes" && svc.metadata.namespace === "default");
    expect(foundSvc, "could not find service 'kubernetes' in service list in all namespaces").toBe(true);
  });
});
