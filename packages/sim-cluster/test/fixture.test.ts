// The shared fixture of the conformance suites: what it hands a test file, and that it leaves no
// cluster or file behind.
import { CoreV1Api } from "@kubernetes/client-node";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { useSimCluster, useSimClusterPerTest } from "./fixture.js";
import { kubectl } from "./kubectl.js";

const sim = useSimCluster({ nodes: 1, namespacePrefix: "fixture" });
const readBeforeStart = (() => {
  try {
    return sim.client;
  } catch (error) {
    return error;
  }
})();

describe("useSimCluster", () => {
  it("refuses to hand out the cluster before beforeAll started it", () => {
    expect(readBeforeStart).toBeInstanceOf(Error);
    expect((readBeforeStart as Error).message).toMatch(/read before beforeAll started it/);
  });

  it("names namespaces <prefix>-<n>, counting with uniqueName, and creates them", async () => {
    expect(await sim.newNamespace()).toBe("fixture-1");
    expect(sim.uniqueName("object")).toBe("object-2");
    expect(await sim.newNamespace("other")).toBe("other-3");
    const names = (await sim.client.list({ group: "", version: "v1", resource: "namespaces", namespaced: false })).items.map(
      (namespace) => namespace.metadata?.name,
    );
    expect(names).toEqual(expect.arrayContaining(["fixture-1", "other-3"]));
    expect(names).not.toContain("object-2");
  });

  it("gives @kubernetes/client-node a KubeConfig for the cluster, and kubectl its kubeconfig file", async () => {
    const namespace = await sim.newNamespace();
    const kubeConfig = await sim.kubeConfig();
    expect(kubeConfig.getCurrentCluster()?.server).toBe(sim.cluster.url);
    const read = await kubeConfig.makeApiClient(CoreV1Api).readNamespace({ name: namespace });
    expect(read.metadata?.name).toBe(namespace);
    const table = await kubectl(sim.kubeconfig, ["get", "namespace", namespace, "-o", "name"]);
    expect(table).toMatchObject({ code: 0, stdout: `namespace/${namespace}\n` });
  });
});

let closed: { url: string; kubeconfig: string; read: () => unknown } | undefined;
describe("a fixture inside a describe block", () => {
  const scoped = useSimCluster();
  it("runs its own cluster for the block", async () => {
    closed = { url: scoped.cluster.url, kubeconfig: scoped.kubeconfig, read: () => scoped.cluster };
    expect(scoped.cluster.url).not.toBe(sim.cluster.url);
    expect(existsSync(scoped.kubeconfig)).toBe(true);
    expect((await fetch(`${scoped.cluster.url}/readyz`)).status).toBe(200);
    expect(await scoped.newNamespace()).toBe("test-1");
  });
});

describe("after that block", () => {
  it("its cluster is closed, its kubeconfig removed, and the fixture refuses to hand it out", async () => {
    expect(closed).toBeDefined();
    expect(existsSync(closed!.kubeconfig)).toBe(false);
    await expect(fetch(`${closed!.url}/readyz`)).rejects.toThrow();
    expect(closed!.read).toThrow(/after afterAll closed it/);
  });
});

let perTest: { url: string; kubeconfig: string } | undefined;
describe("useSimClusterPerTest", () => {
  const each = useSimClusterPerTest({ namespacePrefix: "each" });
  it("starts the cluster a test asks for, with a client and a kubeconfig file, once", async () => {
    const cluster = await each.start({ nodes: 2 });
    perTest = { url: cluster.url, kubeconfig: each.kubeconfig };
    expect(cluster.nodes).toHaveLength(2);
    expect(each.cluster).toBe(cluster);
    expect(existsSync(each.kubeconfig)).toBe(true);
    expect(await each.newNamespace()).toBe("each-1");
    await expect(each.start()).rejects.toThrow(/this test started its cluster already/);
  });

  it("closed the last test's cluster and removed its files, and hands out none before this test starts one", async () => {
    expect(perTest).toBeDefined();
    await expect(fetch(`${perTest!.url}/readyz`)).rejects.toThrow();
    expect(existsSync(perTest!.kubeconfig)).toBe(false);
    expect(() => each.client).toThrow(/read before this test started one/);
  });
});
