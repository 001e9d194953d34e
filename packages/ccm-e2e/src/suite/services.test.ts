import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSimCluster, type SimCluster } from "@kubekit/sim-cluster";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSuite } from "../runner/run-suite.js";

// The ported tests that need only the API server, run for real against sim-cluster.
describe("API-only Services tests against sim-cluster", () => {
  let cluster: SimCluster;
  let dir: string;
  let kubeconfig: string;

  beforeAll(async () => {
    cluster = await startSimCluster({ nodes: 1 });
    dir = await mkdtemp(join(tmpdir(), "ccm-e2e-svc-"));
    kubeconfig = join(dir, "kubeconfig");
    await cluster.writeKubeconfig(kubeconfig);
  });
  afterAll(async () => {
    await cluster?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("passes should delete a collection of services, and skips what needs service traffic", async () => {
    const result = await runSuite({
      kubeconfig,
      driver: { name: "api-only", capabilities: {}, timeoutScale: 0.02 },
      focus: "delete a collection of services|release NodePorts on delete",
    });
    expect(result.results.map((r) => [r.name, r.state, r.message])).toEqual([
      ["[sig-network] Services should release NodePorts on delete", "skipped", 'driver "api-only" does not provide capability "serviceTraffic"'],
      ["[sig-network] Services should delete a collection of services [Conformance]", "passed", undefined],
    ]);
  }, 60_000);
});
