import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parsePrefix } from "@kubekit/network-registry";
import { describe, expect, it } from "vitest";
import type { Plan } from "./plan.js";

const MAIN = fileURLToPath(new URL("../dist/main.js", import.meta.url));

function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN, ...args], { timeout: 20_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr });
    });
  });
}

describe("network-plan", () => {
  it("prints a plan whose cluster ranges never overlap and whose node CIDRs sit in their cluster's pods", async () => {
    const result = await run("--clusters", "4", "--nodes", "3", "--json");
    expect(result.code).toBe(0);
    const plan = JSON.parse(result.stdout) as Plan;
    expect(plan.clusters).toHaveLength(4);
    const clusterRanges = plan.clusters.flatMap((c) =>
      [...c.pods, ...c.services].map((text) => ({ cluster: c.name, prefix: parsePrefix(text) })),
    );
    for (const a of clusterRanges) {
      for (const b of clusterRanges) {
        if (a !== b) expect(a.prefix.overlaps(b.prefix), `${a.prefix.toString()} and ${b.prefix.toString()}`).toBe(false);
      }
    }
    for (const cluster of plan.clusters) {
      const podRanges = cluster.pods.map(parsePrefix);
      const nodeCidrs = cluster.nodes.flatMap((n) => n.podCIDRs.map(parsePrefix));
      expect(nodeCidrs).toHaveLength(6);
      for (const cidr of nodeCidrs) expect(podRanges.some((p) => p.contains(cidr))).toBe(true);
      for (const a of nodeCidrs) for (const b of nodeCidrs) if (a !== b) expect(a.overlaps(b)).toBe(false);
    }
    // Every record the registry holds was granted.
    const statuses = [...plan.claims.flatMap((c) => c.status?.addressSpace ?? []), ...plan.allocations.map((a) => a.record)].map(
      (r) => r.status,
    );
    expect(plan.allocations).toHaveLength(4 * (4 + 3 * 2));
    expect(new Set(statuses)).toEqual(new Set(["allocated"]));
  });

  it("prints a human-readable plan", async () => {
    const result = await run("--clusters", "2", "--nodes", "1");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^cluster-1\n {2}pods {6}10\.0\.0\.0\/16 {2}fd00:10::\/48\n/);
    expect(result.stdout).toContain("cluster-2");
    expect(result.stdout).toMatch(/10\.0\.0\.0\/8: [\d.]+% used/);
  });

  it("refuses an unknown flag in one line with exit code 2", async () => {
    const result = await run("--bogus");
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^network-plan: Unknown option '--bogus'[^\n]*\n$/);
  });

  it("fails clearly when the supernet cannot be claimed", async () => {
    const result = await run("--supernet", "127.0.0.0/8");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("Loopback");
  });
});
