import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { runSuite } from "@kubekit/ccm-e2e";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeCloudEnvironment, type FakeCloudEnvironment } from "./environment.js";
import { FAULTS, type Fault } from "./faults.js";

const LB = "[sig-network] LoadBalancers [Feature:LoadBalancer]";

/**
 * For each seeded fault, the suite's tests that catch it (the run is narrowed to them to keep CI
 * short; the full suite passes without a fault, see suite.test.ts).
 */
const CAUGHT_BY: Record<Fault, readonly string[]> = {
  "keep-finalizer": [`${LB} should handle load balancer cleanup finalizer for service [Slow]`],
  "leak-load-balancers": [`${LB} should handle load balancer cleanup finalizer for service [Slow]`],
  "ignore-port-changes": [`${LB} [TCP] should be able to change the type and ports of the service [Slow]`],
  "ignore-protocol": [`${LB} [UDP] should be able to change the type and ports of the service [Slow]`],
  "delete-on-lookup-error": [
    "[sig-cloud-provider-gcp] Reboot [Disruptive] [Feature:Reboot] each node by ordering clean reboot and ensure they function upon restart",
  ],
  "drop-session-affinity": [
    `${LB} should have session affinity work for LoadBalancer service with Cluster traffic policy [Slow] [LinuxOnly]`,
  ],
  "etp-local-all-nodes": [
    "[sig-network] LoadBalancers ExternalTrafficPolicy: Local [Feature:LoadBalancer] [Slow] should only target nodes with endpoints",
  ],
  "ignore-source-ranges": [`${LB} should only allow access from service loadbalancer source ranges [Slow]`],
  "restart-loses-pods": [
    "[sig-cloud-provider-gcp] Restart [Disruptive] [KubeUp] should restart all nodes and ensure all nodes and pods recover",
  ],
  "upgrade-drops-lb-backends": [
    "[sig-cloud-provider-gcp] Upgrade [Feature:Upgrade] cluster upgrade should maintain a functioning cluster [Feature:ClusterUpgrade]",
    "[sig-cloud-provider-gcp] Downgrade [Feature:Downgrade] cluster downgrade should maintain a functioning cluster [Feature:ClusterDowngrade]",
  ],
};

/** Where the upgrade tests move the cluster (the sim cluster starts at 1.32.0). */
const UPGRADE_TARGET = "1.33.0";

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const xmlEscape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

describe("the suite against a mini CCM built with one seeded fault", () => {
  let env: FakeCloudEnvironment | undefined;
  afterEach(async () => {
    await env?.close();
    env = undefined;
  });

  it("covers every fault", () => {
    expect(Object.keys(CAUGHT_BY).sort()).toEqual([...FAULTS].sort());
  });

  it.each(FAULTS)(
    "fails a test for %s, and the report names it with the assertion text",
    async (fault) => {
      env = await startFakeCloudEnvironment({ fault });
      const junitDir = join(env.kubeconfig, "..", "junit");
      const focus = CAUGHT_BY[fault].map((name) => `^${escapeRegExp(name)}$`).join("|");
      const result = await runSuite({ kubeconfig: env.kubeconfig, driver: env.driver, junitDir, focus, upgradeTarget: UPGRADE_TARGET });
      expect(result.results.map((r) => r.name).sort()).toEqual([...CAUGHT_BY[fault]].sort());
      expect(result.exitCode).toBe(1);
      const failed = result.results.filter((r) => r.state === "failed" || r.state === "timedout");
      expect(failed.length).toBeGreaterThan(0);
      const xml = await readFile(join(junitDir, "junit_01.xml"), "utf8");
      for (const test of failed) {
        expect(test.message).toBeTruthy();
        expect(xml).toContain(`<testcase name="[It] ${xmlEscape(test.name)}`);
        expect(xml).toContain(xmlEscape(test.message!.split("\n")[0]!));
      }
    },
    300_000,
  );
});
