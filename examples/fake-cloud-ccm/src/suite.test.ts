import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runSuite, SUITE, type SuiteResult } from "@kubekit/ccm-e2e";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeCloudEnvironment, type FakeCloudEnvironment } from "./environment.js";

// sim-cluster drops writes to a Service's status (its update strategy restores the stored status
// for /status writes too), so no CCM can publish status.loadBalancer.ingress there yet: the tests
// that wait for a load balancer's ingress are left out of these runs until it does.
const NEEDS_LB_STATUS = "cleanup finalizer";

const NODE_DELETION = "[sig-cloud-provider] [Feature:CloudProvider] [Disruptive] Nodes should be deleted on API server if it doesn't exist in the cloud provider";
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

  it("passes every test the environment can run and skips the rest with the missing capability", async () => {
    env = await startFakeCloudEnvironment();
    const junitDir = join(env.kubeconfig, "..", "junit");
    const result = await runSuite({ kubeconfig: env.kubeconfig, driver: env.driver, junitDir, skip: NEEDS_LB_STATUS });
    expect(result.results.filter((r) => r.state !== "passed" && r.state !== "skipped")).toEqual([]);
    expect(byState(result, "passed").sort()).toEqual([NODE_DELETION, ...REBOOTS, "[sig-network] Services should delete a collection of services [Conformance]"].sort());
    for (const skipped of result.results.filter((r) => r.state === "skipped")) expect(skipped.message).toMatch(/^driver "fake-cloud" does not provide /);
    expect(result.exitCode).toBe(0);
    expect(await readFile(join(junitDir, "junit_01.xml"), "utf8")).toContain('failures="0"');
  });

  it("runs node deletion with the declarative YAML driver, whose commands reach the cloud out of process", async () => {
    env = await startFakeCloudEnvironment();
    const driverFile = join(env.kubeconfig, "..", "driver.yaml");
    const text = await readFile(join(import.meta.dirname, "..", "driver.yaml"), "utf8");
    await writeFile(driverFile, `${text}env:\n  FAKE_CLOUD_URL: ${JSON.stringify(env.adminUrl)}\n`);
    const result = await runSuite({ kubeconfig: env.kubeconfig, driver: driverFile, focus: "Nodes should be deleted" });
    expect(result.results.map((r) => [r.name, r.state, r.message])).toEqual([[NODE_DELETION, "passed", undefined]]);
  });

  it("catches a CCM that deletes Nodes when the instance lookup fails, naming the tests in the report", async () => {
    env = await startFakeCloudEnvironment({ fault: "delete-on-lookup-error" });
    const junitDir = join(env.kubeconfig, "..", "junit");
    const result = await runSuite({ kubeconfig: env.kubeconfig, driver: env.driver, junitDir, focus: "Reboot" });
    expect(result.exitCode).toBe(1);
    // The first reboot loses every node; the next ones find none left to reboot.
    expect(byState(result, "failed").sort()).toEqual([...REBOOTS].sort());
    const [first, ...rest] = result.results.filter((r) => r.state === "failed");
    expect(first!.message).toMatch(/^Test failed; at least one node failed to reboot in the time given\.\nNode sim-node-\d failed reboot test: did not become Ready again/);
    for (const later of rest) expect(later.message).toBe("there are currently no ready, schedulable nodes in the cluster");
    const xml = await readFile(join(junitDir, "junit_01.xml"), "utf8");
    expect(xml).toContain(`<testcase name="[It] ${REBOOTS[0]} [sig-cloud-provider-gcp, Disruptive, Feature:Reboot]" classname="CCM e2e suite" status="failed"`);
  });
});
