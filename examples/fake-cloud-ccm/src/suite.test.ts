import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runSuite, SUITE, type SuiteResult } from "@kubekit/ccm-e2e";
import { afterEach, describe, expect, it } from "vitest";
import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { NODES } from "./ccm/objects.js";
import { startFakeCloudEnvironment, type FakeCloudEnvironment } from "./environment.js";

const NODE_DELETION =
  "[sig-cloud-provider] [Feature:CloudProvider] [Disruptive] Nodes should be deleted on API server if it doesn't exist in the cloud provider";
const EXTERNAL_IP =
  "[sig-network] Services should be possible to connect to a service via ExternalIP when the external IP is not assigned to a node";
const UPGRADES = SUITE.filter((t) => t.upstream === "test/e2e/cloud/gcp/cluster_upgrade.go").map((t) => t.name);
const REBOOTS = ["clean reboot", "unclean reboot", "kernel panic"].map((what) => SUITE.find((t) => t.name.includes(what))!.name);

function byState(result: SuiteResult, state: string): string[] {
  return result.results.filter((r) => r.state === state).map((r) => r.name);
}

describe("the ported suite against the fake cloud and its mini CCM", () => {
  let env: FakeCloudEnvironment | undefined;
  afterEach(async () => {
    await env?.close();
    env = undefined;
  });

  it("passes every test but the one the fake cloud has no capability for, which it skips naming it", async () => {
    env = await startFakeCloudEnvironment();
    const junitDir = join(env.kubeconfig, "..", "junit");
    const result = await runSuite({ kubeconfig: env.kubeconfig, driver: env.driver, junitDir, upgradeTarget: "1.33.0" });
    expect(result.results.filter((r) => r.state !== "passed" && r.state !== "skipped").map((r) => [r.name, r.message])).toEqual([]);
    expect(result.results.filter((r) => r.state === "skipped").map((r) => [r.name, r.message])).toEqual([
      [EXTERNAL_IP, 'driver "fake-cloud" does not provide capability "externalIPs"'],
    ]);
    expect(byState(result, "passed")).toHaveLength(SUITE.length - 1);
    expect(result.exitCode).toBe(0);
    expect(await readFile(join(junitDir, "junit_01.xml"), "utf8")).toContain('failures="0"');
  }, 600_000);

  it("runs node deletion with the declarative YAML driver, whose commands reach the cloud out of process", async () => {
    env = await startFakeCloudEnvironment();
    const driverFile = join(env.kubeconfig, "..", "driver.yaml");
    const text = await readFile(join(import.meta.dirname, "..", "driver.yaml"), "utf8");
    await writeFile(driverFile, `${text}env:\n  FAKE_CLOUD_URL: ${JSON.stringify(env.adminUrl)}\n`);
    const result = await runSuite({ kubeconfig: env.kubeconfig, driver: driverFile, focus: "Nodes should be deleted" });
    expect(result.results.map((r) => [r.name, r.state, r.message])).toEqual([[NODE_DELETION, "passed", undefined]]);
  });

  it("downgrades the cluster with the YAML driver, nodes first, its load balancer answering throughout", async () => {
    env = await startFakeCloudEnvironment();
    const driverFile = join(env.kubeconfig, "..", "driver.yaml");
    const text = await readFile(join(import.meta.dirname, "..", "driver.yaml"), "utf8");
    await writeFile(driverFile, `${text}env:\n  FAKE_CLOUD_URL: ${JSON.stringify(env.adminUrl)}\n`);
    const result = await runSuite({ kubeconfig: env.kubeconfig, driver: driverFile, focus: "Downgrade", upgradeTarget: "v1.31.2" });
    expect(result.results.map((r) => [r.name, r.state, r.message])).toEqual([[UPGRADES[2], "passed", undefined]]);
    expect(result.results[0]!.output.join("\n")).toMatch(
      /downgrading the nodes to 1\.31\.2[\s\S]*downgrading the control plane to 1\.31\.2/,
    );
    const client = new KubeClient({ server: env.cluster.url });
    try {
      expect(await client.request("GET", "/version")).toMatchObject({ gitVersion: "v1.31.2", minor: "31" });
      const nodes = (await client.list<{ metadata: { name: string }; status: { nodeInfo: { kubeletVersion: string } } }>(NODES)).items;
      expect(nodes.map((n) => n.status.nodeInfo.kubeletVersion)).toEqual(["v1.31.2", "v1.31.2", "v1.31.2"]);
    } finally {
      client.close();
    }
  });

  it("catches a CCM that deletes Nodes when the instance lookup fails, naming the tests in the report", async () => {
    env = await startFakeCloudEnvironment({ fault: "delete-on-lookup-error" });
    const junitDir = join(env.kubeconfig, "..", "junit");
    const result = await runSuite({
      kubeconfig: env.kubeconfig,
      driver: env.driver,
      junitDir,
      focus: REBOOTS.map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"),
    });
    expect(result.exitCode).toBe(1);
    // A rebooting instance cannot be looked up; the faulty CCM deletes its NotReady Node, which the
    // kubelet registers again once up. Depending on when the deletion lands, the test sees the Node
    // gone while it waits for NotReady, or back with a new uid.
    expect(byState(result, "failed").sort()).toEqual([...REBOOTS].sort());
    for (const failed of result.results.filter((r) => r.state === "failed")) {
      expect(failed.message).toMatch(
        /^Test failed; at least one node failed to reboot in the time given\.\nNode (sim-node-\d) failed reboot test: (the Node was deleted and registered again \(uid [\w-]+ -> [\w-]+\)|did not go NotReady: timed out after \d+s waiting for node \1 to be NotReady \(last: nodes "\1" not found\))/,
      );
    }
    const xml = await readFile(join(junitDir, "junit_01.xml"), "utf8");
    expect(xml).toContain(
      `<testcase name="[It] ${REBOOTS[0]} [sig-cloud-provider-gcp, Disruptive, Feature:Reboot]" classname="CCM e2e suite" status="failed"`,
    );
  });
});
