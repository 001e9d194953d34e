import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isNotFound, KubeClient } from "@kubekit/generic-controlplane/controllers";
import { startSimCluster, type SimCluster } from "@kubekit/sim-cluster";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSuite } from "../runner/run-suite.js";
import { fail } from "./assert.js";
import { AGNHOST_IMAGE } from "./jig.js";
import { podVantagePoint } from "./pod-vantage-point.js";
import { poll } from "./poll.js";
import { NAMESPACES, NODES, PODS, SERVICES, type Node, type Pod, type Service } from "./resources.js";

// The dialer pods against a traffic-mode sim-cluster, whose pods answer as agnhost netexec and
// whose API server serves pods/proxy.
describe("the dialer pods, the default in-cluster vantage point", () => {
  let cluster: SimCluster;
  let client: KubeClient;
  let dir: string;
  let kubeconfig: string;
  let clusterIP: string;
  const namespace = "vantage-target";

  beforeAll(async () => {
    cluster = await startSimCluster({ nodes: 2, traffic: true });
    client = new KubeClient({ server: cluster.url });
    dir = await mkdtemp(join(tmpdir(), "ccm-e2e-vantage-"));
    kubeconfig = join(dir, "kubeconfig");
    await cluster.writeKubeconfig(kubeconfig);
    await client.create(NAMESPACES, undefined, { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
    await client.create(PODS, namespace, {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "backend", labels: { app: "backend" } },
      spec: {
        nodeName: "sim-node-1",
        containers: [{ name: "c", image: AGNHOST_IMAGE, args: ["netexec", "--http-port=8080", "--udp-port=8081"] }],
      },
    });
    const service = await client.create<Service>(SERVICES, namespace, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "backend" },
      spec: {
        selector: { app: "backend" },
        ports: [
          { name: "http", port: 80, targetPort: 8080, protocol: "TCP" },
          { name: "udp", port: 90, targetPort: 8081, protocol: "UDP" },
        ],
      },
    });
    clusterIP = service.spec.clusterIP!;
  }, 60_000);
  afterAll(async () => {
    client?.close();
    await cluster?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("reaches a ClusterIP and a service name over TCP and UDP from inside, and from a node with that node's address", async () => {
    const dialers = podVantagePoint(client, { podStartTimeoutMs: 30_000, namespaceDeleteTimeoutMs: 30_000 });
    try {
      const options = { timeoutMs: 2000 };
      expect(
        await poll("the ClusterIP", { timeoutMs: 30_000 }, async () => (await dialers.httpGet(clusterIP, 80, "/hostname", options)).body),
      ).toBe("backend");
      expect(await dialers.httpGet(`backend.${namespace}.svc.cluster.local`, 80, "/echo?msg=hello", options)).toEqual({
        status: 200,
        body: "hello",
      });
      expect(await dialers.udpExchange(clusterIP, 90, "echo hello", options)).toBe("hello");
      const node2 = await client.get<Node>(NODES, undefined, "sim-node-2");
      const node2IP = node2.status!.addresses!.find((a) => a.type === "InternalIP")!.address;
      const seen = (await dialers.httpGet(clusterIP, 80, "/clientip", { ...options, fromNode: "sim-node-2" })).body;
      expect(seen.replace(/:\d+$/, "")).toBe(node2IP);
      const hostDialers = (await client.list<Pod>(PODS, undefined, { labelSelector: "ccm-e2e-dialer=true" })).items.filter(
        (p) => p.spec?.["hostNetwork"] === true,
      );
      expect(hostDialers.map((p) => p.spec?.nodeName)).toEqual(["sim-node-2"]);
      // No answer is an error with netexec's reason, as upstream's test container reports it.
      await expect(dialers.httpGet(clusterIP, 81, "/hostname", options)).rejects.toThrow(/connection refused|context deadline exceeded/);
      await expect(dialers.httpGet(`missing.${namespace}.svc.cluster.local`, 80, "/hostname", options)).rejects.toThrow("no such host");
    } finally {
      await dialers.close();
    }
    expect((await client.list<Pod>(PODS, undefined, { labelSelector: "ccm-e2e-dialer=true" })).items).toEqual([]);
  }, 90_000);

  it("is what a run gives tests when the driver has no inCluster vantage point, and is deleted after the run", async () => {
    const dialerNamespaces: string[] = [];
    const result = await runSuite({
      kubeconfig,
      driver: { name: "no-vantage-point", capabilities: { serviceTraffic: true } },
      tests: [
        {
          name: "[sig-test] reaches a ClusterIP from inside",
          upstream: "x",
          requires: { capabilities: ["serviceTraffic"] },
          async run(ctx) {
            const answer = await poll(
              "the ClusterIP",
              { timeoutMs: 30_000, signal: ctx.signal },
              async () => (await ctx.inCluster.httpGet(clusterIP, 80, "/hostname", { timeoutMs: 2000 })).body,
            );
            if (answer !== "backend") fail(`answered ${answer}`);
            dialerNamespaces.push(
              ...(await ctx.client.list<{ metadata: { name: string } }>(NAMESPACES)).items
                .map((n) => n.metadata.name)
                .filter((name) => name.startsWith("ccm-e2e-dialers-")),
            );
          },
        },
      ],
    });
    expect(result.results.map((r) => [r.state, r.message])).toEqual([["passed", undefined]]);
    expect(dialerNamespaces).toHaveLength(1);
    await expect(
      client.get(NAMESPACES, undefined, dialerNamespaces[0]!).then(
        () => false,
        (error: unknown) => isNotFound(error),
      ),
    ).resolves.toBe(true);
  }, 90_000);
});
