import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSimCluster, type SimCluster } from "@kubekit/sim-cluster";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CcmDriver, NodeRef } from "../driver/types.js";
import { runSuite } from "../runner/run-suite.js";

const RELEASE_NODE_PORTS = "[sig-network] Services should release NodePorts on delete";

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
      [
        "[sig-network] Services should release NodePorts on delete",
        "skipped",
        'driver "api-only" does not provide capability "serviceTraffic"',
      ],
      ["[sig-network] Services should delete a collection of services [Conformance]", "passed", undefined],
    ]);
  }, 60_000);
});

// The node-access check of "should release NodePorts on delete": the sim cluster's nodes share
// this host's loopback, so `ss` here sees what a shell on the node would.
describe("should release NodePorts on delete with node access", () => {
  let cluster: SimCluster;
  let dir: string;
  let kubeconfig: string;

  beforeAll(async () => {
    cluster = await startSimCluster({ nodes: 1, traffic: true });
    dir = await mkdtemp(join(tmpdir(), "ccm-e2e-svc-"));
    kubeconfig = join(dir, "kubeconfig");
    await cluster.writeKubeconfig(kubeconfig);
  });
  afterAll(async () => {
    await cluster?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const driver = (execOnNode: (node: NodeRef, command: string) => Promise<string>): CcmDriver => ({
    name: "node-access",
    capabilities: { serviceTraffic: true },
    timeoutScale: 0.02,
    execOnNode,
  });

  it("passes when no socket listens on the port on the node, running upstream's ss check there", async () => {
    const commands: string[] = [];
    const result = await runSuite({
      kubeconfig,
      driver: driver(async (_node, command) => {
        commands.push(command);
        return (await promisify(execFile)("/bin/sh", ["-c", command])).stdout;
      }),
      focus: "release NodePorts on delete",
    });
    expect(result.results.map((r) => [r.name, r.state, r.message])).toEqual([[RELEASE_NODE_PORTS, "passed", undefined]]);
    expect(commands[0]).toMatch(/^ss -Hltn 'sport = :\d+'$/);
  }, 60_000);

  it("fails naming the port while the node still listens on it (its own address or a wildcard), not for other addresses", async () => {
    const result = await runSuite({
      kubeconfig,
      driver: driver((node, command) => {
        const port = /sport = :(\d+)/.exec(command)![1]!;
        const address = node.addresses.find((a) => a.type === "InternalIP")!.address;
        return Promise.resolve(`LISTEN 0      511    127.250.0.9:${port} 0.0.0.0:*\nLISTEN 0      511    ${address}:${port} 0.0.0.0:*\n`);
      }),
      focus: "release NodePorts on delete",
    });
    expect(result.results.map((r) => r.state)).toEqual(["failed"]);
    expect(result.results[0]!.message).toMatch(
      /^expected node port (\d+) to not be in use in \d+ ms, stdout: LISTEN +0 +511 +127\.\d+\.\d+\.\d+:\1 0\.0\.0\.0:\*$/,
    );
    expect(result.results[0]!.message).not.toContain("127.250.0.9:");
  }, 60_000);
});
