import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSimCluster, type SimCluster } from "@kubekit/sim-cluster";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUITE } from "../suite/index.js";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, runCli } from "./program.js";

describe("ccm-e2e CLI", () => {
  let cluster: SimCluster;
  let dir: string;
  let kubeconfig: string;

  beforeAll(async () => {
    cluster = await startSimCluster({ nodes: 1 });
    dir = await mkdtemp(join(tmpdir(), "ccm-e2e-cli-"));
    kubeconfig = join(dir, "kubeconfig");
    await cluster.writeKubeconfig(kubeconfig);
  });
  afterAll(async () => {
    await cluster?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
    let out = "";
    let err = "";
    const code = await runCli(argv, { stdout: (t) => (out += t), stderr: (t) => (err += t), tty: false });
    return { code, out, err };
  }

  it("lists every test with its labels, requirements and upstream file", async () => {
    const { code, out } = await cli("list");
    expect(code).toBe(EXIT_OK);
    for (const test of SUITE) expect(out).toContain(`${test.name}\n  labels: `);
    expect(out).toContain(
      "[sig-network] Services should delete a collection of services [Conformance]\n  labels: sig-network, Conformance\n  requires: -\n  ports: test/e2e/network/service.go",
    );
  });

  it("lists the upgrade tests with cluster_upgrade.go, and refuses an --upgrade-target that is no version", async () => {
    const { out } = await cli("list");
    expect(out).toContain(
      "[sig-cloud-provider-gcp] Downgrade [Feature:Downgrade] cluster downgrade should maintain a functioning cluster [Feature:ClusterDowngrade]\n  labels: sig-cloud-provider-gcp, Feature:Downgrade, Feature:ClusterDowngrade\n  requires: capability:downgrade, hook:downgrade\n  ports: test/e2e/cloud/gcp/cluster_upgrade.go",
    );
    const driver = join(dir, "none-upgrade.yaml");
    await writeFile(driver, "name: no-cloud\ncapabilities: {}\n");
    const { code, err } = await cli("run", "--kubeconfig", kubeconfig, "--driver", driver, "--upgrade-target", "release/stable");
    expect([code, err]).toEqual([EXIT_USAGE, 'ccm-e2e: --upgrade-target: "release/stable" is not a semantic version such as 1.33.1\n']);
  });

  it("skips what a driver without load balancers cannot run, with reasons, and exits 0", async () => {
    const driver = join(dir, "none.yaml");
    await writeFile(driver, "name: no-cloud\ncapabilities: {}\n");
    const junit = join(dir, "junit");
    const { code, out } = await cli("run", "--kubeconfig", kubeconfig, "--driver", driver, "--junit-dir", junit);
    expect(code).toBe(EXIT_OK);
    expect(out).toMatch(/PASS \[sig-network\] Services should delete a collection of services \[Conformance\]/);
    const skippedLb = SUITE.filter((t) => t.requires.capabilities?.includes("loadBalancer"));
    expect(skippedLb.length).toBeGreaterThan(10);
    for (const test of skippedLb) expect(out).toContain(`SKIP ${test.name}`);
    expect(out).toContain("Skipped:");
    expect(await readFile(join(junit, "junit_01.xml"), "utf8")).toContain('<property name="SuiteSucceeded" value="true">');
  }, 60_000);

  it("exits 1 when a test fails, with the assertion text in the summary and as the JUnit failure", async () => {
    // The cluster has no CCM: a driver claiming load balancers waits for an ingress that never comes.
    const driver = join(dir, "claims-lb.yaml");
    await writeFile(driver, "name: no-ccm\ncapabilities:\n  loadBalancer: true\ntimeouts:\n  lbCreate: 1s\n");
    const junit = join(dir, "junit-failed");
    const { code, out } = await cli(
      "run",
      "--kubeconfig",
      kubeconfig,
      "--driver",
      driver,
      "--junit-dir",
      junit,
      "--focus",
      "cleanup finalizer",
    );
    expect(code).toBe(EXIT_FAILED);
    const name = "[sig-network] LoadBalancers [Feature:LoadBalancer] should handle load balancer cleanup finalizer for service [Slow]";
    expect(out).toContain(`FAIL ${name}`);
    const assertion = /timed out after 1s waiting for service [\w-]+\/lb-finalizer to have a load balancer/;
    expect(out).toMatch(assertion);
    const xml = await readFile(join(junit, "junit_01.xml"), "utf8");
    expect(xml).toContain(
      `<testcase name="[It] ${name} [sig-network, Feature:LoadBalancer, Slow]" classname="CCM e2e suite" status="failed"`,
    );
    expect(xml).toMatch(new RegExp(`<failure type="failed">${assertion.source}`));
    expect(xml).toContain('<property name="SuiteSucceeded" value="false">');
  }, 60_000);

  it("prints one JSON document with -o json (progress on stderr) and writes an HTML report", async () => {
    const driver = join(dir, "none-json.yaml");
    await writeFile(driver, "name: no-cloud\ncapabilities: {}\n");
    const html = join(dir, "report", "index.html");
    const { code, out, err } = await cli(
      "run",
      "--kubeconfig",
      kubeconfig,
      "--driver",
      driver,
      "-o",
      "json",
      "--report-html",
      html,
      "--focus",
      "delete a collection of services|cleanup finalizer",
    );
    expect(code).toBe(EXIT_OK);
    const report = JSON.parse(out) as {
      driver: string;
      passed: number;
      skipped: number;
      exitCode: number;
      tests: { name: string; state: string; message?: string; durationMs: number }[];
    };
    expect(report).toMatchObject({ driver: "no-cloud", passed: 1, skipped: 1, exitCode: 0 });
    const finalizer = "[sig-network] LoadBalancers [Feature:LoadBalancer] should handle load balancer cleanup finalizer for service [Slow]";
    expect(report.tests.map((t) => [t.name, t.state, t.message])).toEqual([
      [finalizer, "skipped", 'driver "no-cloud" does not provide capability "loadBalancer"'],
      ["[sig-network] Services should delete a collection of services [Conformance]", "passed", undefined],
    ]);
    expect(err).toContain("PASS [sig-network] Services should delete a collection of services [Conformance]");
    const page = await readFile(html, "utf8");
    expect(page).toContain("<title>ccm-e2e: no-cloud passed</title>");
    expect(page).toContain(
      `<tr class="skipped"><td class="state">skipped</td><td>${finalizer}<pre>driver &quot;no-cloud&quot; does not provide capability &quot;loadBalancer&quot;</pre>`,
    );
    expect(page).toContain("1 passed, 0 failed, 1 skipped");
  }, 60_000);

  it("exits 2 naming the field of an invalid driver", async () => {
    const driver = join(dir, "bad.yaml");
    await writeFile(driver, "name: x\ncapabilities:\n  loadbalancer: true\n");
    const { code, err } = await cli("run", "--kubeconfig", kubeconfig, "--driver", driver);
    expect(code).toBe(EXIT_USAGE);
    expect(err).toBe(`ccm-e2e: ${driver}: capabilities.loadbalancer: unknown field "loadbalancer"\n`);
  });

  it("exits 2 on a bad flag value", async () => {
    expect((await cli("run", "--driver", "x.yaml", "--parallel", "0")).code).toBe(EXIT_USAGE);
    const driver = join(dir, "ok.yaml");
    await writeFile(driver, "name: x\ncapabilities: {}\n");
    const { code, err } = await cli("run", "--driver", driver, "--dry-run", "--label-filter", "Slow &");
    expect(code).toBe(EXIT_USAGE);
    expect(err).toContain('invalid label filter "Slow &"');
  });

  it("prints the selection on a dry run without contacting the cluster", async () => {
    const driver = join(dir, "ok.yaml");
    await writeFile(driver, "name: x\ncapabilities: {}\n");
    const { code, out } = await cli("run", "--kubeconfig", join(dir, "absent"), "--driver", driver, "--dry-run", "--focus", "collection");
    expect(code).toBe(EXIT_OK);
    expect(out).toContain('Running 1 tests with driver "x" (dry run)');
  });
});
