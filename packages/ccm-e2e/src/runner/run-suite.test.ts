import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSimCluster, type SimCluster } from "@kubekit/sim-cluster";
import { isNotFound, KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CcmDriver } from "../driver/types.js";
import { fail } from "../framework/assert.js";
import type { SuiteTest } from "../framework/registry.js";
import { NAMESPACES } from "../framework/resources.js";
import { upgradeSuiteTests } from "../suite/cluster-upgrade.js";
import { runSuite } from "./run-suite.js";

/** A callback as the async function a hook or cleanup must be. */
const settle = (effect: () => unknown) => (): Promise<void> => {
  effect();
  return Promise.resolve();
};

// The runner itself against a real API server (sim-cluster), with tests written for the purpose.
describe("runSuite", () => {
  let cluster: SimCluster;
  let dir: string;
  let kubeconfig: string;
  let client: KubeClient;

  beforeAll(async () => {
    cluster = await startSimCluster({ nodes: 1 });
    dir = await mkdtemp(join(tmpdir(), "ccm-e2e-run-"));
    kubeconfig = join(dir, "kubeconfig");
    await cluster.writeKubeconfig(kubeconfig);
    client = new KubeClient({ server: cluster.url });
  });
  afterAll(async () => {
    client?.close();
    await cluster?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const noLoadBalancers: CcmDriver = { name: "bare", capabilities: {} };

  async function namespaceGone(name: string): Promise<boolean> {
    try {
      await client.get(NAMESPACES, undefined, name);
      return false;
    } catch (error) {
      return isNotFound(error);
    }
  }

  it("reports passes, failures with the assertion text and skips with the reason, cleaning up each namespace", async () => {
    const namespaces: string[] = [];
    const cleanedUp: string[] = [];
    const tests: SuiteTest[] = [
      {
        name: "[sig-test] A passes",
        upstream: "x",
        requires: {},
        async run(ctx) {
          namespaces.push(ctx.namespace);
          await client.get(NAMESPACES, undefined, ctx.namespace);
        },
      },
      {
        name: "[sig-test] B fails [Slow]",
        upstream: "x",
        requires: {},
        run(ctx) {
          namespaces.push(ctx.namespace);
          ctx.defer(settle(() => cleanedUp.push("B")));
          ctx.step("checking the port");
          fail("TCP Spec.Ports[0].NodePort (30080) did not change");
        },
      },
      {
        name: "[sig-test] C needs an LB [Feature:LoadBalancer]",
        upstream: "x",
        requires: { capabilities: ["loadBalancer", "udp"], hooks: ["deleteInstance"] },
        run: () => fail("must not run"),
      },
    ];
    const result = await runSuite({ kubeconfig, driver: noLoadBalancers, tests, junitDir: dir });
    expect(result.results.map((r) => [r.name, r.state])).toEqual([
      ["[sig-test] A passes", "passed"],
      ["[sig-test] B fails [Slow]", "failed"],
      ["[sig-test] C needs an LB [Feature:LoadBalancer]", "skipped"],
    ]);
    expect(result.results[1]!.message).toBe("TCP Spec.Ports[0].NodePort (30080) did not change");
    expect(result.results[2]!.message).toBe(
      'driver "bare" does not provide capability "loadBalancer", capability "udp", hook "deleteInstance"',
    );
    expect(result.exitCode).toBe(1);
    expect(cleanedUp).toEqual(["B"]);
    for (const namespace of namespaces) expect(await namespaceGone(namespace)).toBe(true);

    const xml = await readFile(join(dir, "junit_01.xml"), "utf8");
    expect(result.junitFile).toBe(join(dir, "junit_01.xml"));
    expect(xml).toContain('<testsuites tests="3" disabled="1" errors="0" failures="1"');
    expect(xml).toContain('<testcase name="[It] [sig-test] B fails [Slow] [sig-test, Slow]" classname="CCM e2e suite" status="failed"');
    expect(xml).toContain('<failure type="failed">TCP Spec.Ports[0].NodePort (30080) did not change');
    expect(xml).toContain("STEP: checking the port");
    expect(xml).toContain('<skipped message="skipped - driver &quot;bare&quot; does not provide capability &quot;loadBalancer&quot;');
    expect(xml).toContain('<property name="Driver" value="bare"></property>');
  });

  it("exits 0 when every test passed or was skipped", async () => {
    const tests: SuiteTest[] = [
      { name: "ok", upstream: "x", requires: {}, run: () => Promise.resolve() },
      { name: "lb [Feature:LoadBalancer]", upstream: "x", requires: { capabilities: ["loadBalancer"] }, run: () => fail("must not run") },
    ];
    const result = await runSuite({ kubeconfig, driver: noLoadBalancers, tests });
    expect([result.passed, result.skipped, result.failed, result.exitCode]).toEqual([1, 1, 0, 0]);
  });

  it("selects by focus, skip and label filter, and lists without touching the cluster on a dry run", async () => {
    const tests: SuiteTest[] = ["[sig-a] one [Slow]", "[sig-a] two [Disruptive]", "[sig-b] three"].map((name) => ({
      name,
      upstream: "x",
      requires: {},
      run: () => fail("dry run ran a test"),
    }));
    const names = async (options: { focus?: string; skip?: string; labelFilter?: string }) =>
      (
        await runSuite({ kubeconfig: join(dir, "missing-kubeconfig"), driver: noLoadBalancers, tests, dryRun: true, ...options })
      ).results.map((r) => r.name);
    expect(await names({ focus: "sig-a" })).toEqual(["[sig-a] one [Slow]", "[sig-a] two [Disruptive]"]);
    expect(await names({ skip: "Disruptive" })).toEqual(["[sig-a] one [Slow]", "[sig-b] three"]);
    expect(await names({ labelFilter: "sig-a && !Slow" })).toEqual(["[sig-a] two [Disruptive]"]);
    await expect(names({ focus: "(" })).rejects.toThrow('--focus: invalid regular expression "("');
  });

  it("reads --focus and --skip as Go's RE2 syntax, as Ginkgo does", async () => {
    const tests: SuiteTest[] = ["[sig-a] one [Slow]", "[sig-b] three"].map((name) => ({
      name,
      upstream: "x",
      requires: {},
      run: () => fail("dry run ran a test"),
    }));
    const names = async (options: { focus?: string; skip?: string }) =>
      (
        await runSuite({ kubeconfig: join(dir, "missing-kubeconfig"), driver: noLoadBalancers, tests, dryRun: true, ...options })
      ).results.map((r) => r.name);
    expect(await names({ focus: "(?i)SIG-A" })).toEqual(["[sig-a] one [Slow]"]);
    expect(await names({ skip: "\\pN" })).toEqual(["[sig-a] one [Slow]", "[sig-b] three"]);
    await expect(names({ focus: "(a)\\1" })).rejects.toThrow(
      '--focus: invalid regular expression "(a)\\\\1": error parsing regexp: invalid escape sequence: `\\1`',
    );
  });

  it("times a test out with the per-test timeout, still running its cleanup", async () => {
    let cleaned = false;
    const tests: SuiteTest[] = [
      {
        name: "hangs",
        upstream: "x",
        requires: {},
        async run(ctx) {
          ctx.defer(settle(() => (cleaned = true)));
          await new Promise(() => {});
        },
      },
    ];
    const result = await runSuite({ kubeconfig, driver: { ...noLoadBalancers, timeouts: { test: 300 } }, tests });
    expect(result.results[0]!.state).toBe("timedout");
    expect(result.results[0]!.message).toBe("the test did not finish within 300ms: timeout");
    expect(cleaned).toBe(true);
    expect(result.exitCode).toBe(1);
  });

  it("on interruption cleans up the running test, reports the rest interrupted and still tears the driver down", async () => {
    const controller = new AbortController();
    const events: string[] = [];
    const tests: SuiteTest[] = [
      {
        name: "running",
        upstream: "x",
        requires: {},
        async run(ctx) {
          ctx.defer(settle(() => events.push("cleanup")));
          controller.abort();
          await new Promise(() => {});
        },
      },
      { name: "not started", upstream: "x", requires: {}, run: () => fail("must not run") },
    ];
    const driver: CcmDriver = {
      ...noLoadBalancers,
      teardown: settle(() => events.push("teardown")),
      afterEach: (_t, outcome) => settle(() => events.push(`afterEach ${outcome}`))(),
    };
    const result = await runSuite({ kubeconfig, driver, tests, signal: controller.signal });
    expect(result.results.map((r) => r.state)).toEqual(["interrupted", "interrupted"]);
    expect(events).toEqual(["cleanup", "afterEach interrupted", "teardown"]);
    expect(result.interrupted).toBe(true);
    expect(result.exitCode).toBe(1);
  });

  it("fails every test when the driver's setup fails, and says why", async () => {
    const tests: SuiteTest[] = [{ name: "t", upstream: "x", requires: {}, run: () => Promise.resolve() }];
    const result = await runSuite({
      kubeconfig,
      driver: { ...noLoadBalancers, setup: () => Promise.reject(new Error("no credentials")) },
      tests,
      junitDir: dir,
    });
    expect(result.results[0]).toMatchObject({ state: "failed", message: "driver setup failed: no credentials" });
    expect(await readFile(join(dir, "junit_01.xml"), "utf8")).toContain(
      '<property name="SpecialSuiteFailureReason" value="driver setup failed: no credentials">',
    );
  });

  it("runs tests in parallel up to --parallel", async () => {
    let running = 0;
    let most = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const tests: SuiteTest[] = [1, 2, 3].map((n) => ({
      name: `p${n}`,
      upstream: "x",
      requires: {},
      async run() {
        running++;
        most = Math.max(most, running);
        if (running === 2) open();
        await gate;
        running--;
      },
    }));
    const result = await runSuite({ kubeconfig, driver: noLoadBalancers, tests, parallel: 2 });
    expect(result.passed).toBe(3);
    expect(most).toBe(2);
  });

  it("skips the upgrade tests without an upgrade target, and rejects a target that is no version", async () => {
    const upgrading: CcmDriver = {
      name: "upgrading",
      capabilities: { controlPlaneUpgrade: true, nodeUpgrade: true, downgrade: true },
      upgradeControlPlane: () => Promise.reject(new Error("must not be called")),
      upgradeNodes: () => Promise.reject(new Error("must not be called")),
      downgrade: () => Promise.reject(new Error("must not be called")),
    };
    const result = await runSuite({ kubeconfig, driver: upgrading, tests: upgradeSuiteTests });
    expect(result.results.map((r) => [r.state, r.message])).toEqual(
      upgradeSuiteTests.map(() => [
        "skipped",
        "no upgrade target: give the run --upgrade-target <version> (upstream's flag), the version to move the cluster to",
      ]),
    );
    const unable = await runSuite({ kubeconfig, driver: noLoadBalancers, tests: upgradeSuiteTests, upgradeTarget: "1.33.1" });
    expect(unable.results.map((r) => r.message)).toEqual([
      'driver "bare" does not provide capability "controlPlaneUpgrade", hook "upgradeControlPlane"',
      'driver "bare" does not provide capability "controlPlaneUpgrade", capability "nodeUpgrade", hook "upgradeControlPlane", hook "upgradeNodes"',
      'driver "bare" does not provide capability "downgrade", hook "downgrade"',
    ]);
    await expect(runSuite({ kubeconfig, driver: upgrading, tests: upgradeSuiteTests, upgradeTarget: "ci/latest" })).rejects.toThrow(
      '--upgrade-target: "ci/latest" is not a semantic version such as 1.33.1',
    );
  });
});
