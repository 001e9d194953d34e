import { describe, expect, it } from "vitest";
import type { TestContext } from "./context.js";
import { runUpgradeSuite, type UpgradeTest, type UpgradeType } from "./upgrade-suite.js";

// The runner alone, with upgrade tests written for the purpose; the ported ones run against the fake cloud.
const ctx = {} as TestContext;

function recording(
  name: string,
  events: string[],
  behaviour: { setup?: () => Promise<void>; test?: (done: Promise<void>) => Promise<void> } = {},
): UpgradeTest {
  return {
    name,
    setup: async () => {
      events.push(`${name} setup`);
      await behaviour.setup?.();
    },
    test: async (_ctx, done, upgrade: UpgradeType) => {
      events.push(`${name} test ${upgrade}`);
      await (behaviour.test ?? ((d) => d))(done);
      events.push(`${name} checked after`);
    },
  };
}

describe("runUpgradeSuite", () => {
  it("sets every test up, runs them alongside the upgrade and tells them when it is done", async () => {
    const events: string[] = [];
    await runUpgradeSuite(ctx, [recording("a", events), recording("b", events)], "ClusterUpgrade", async () => {
      events.push("upgrade starts");
      await new Promise((resolve) => setTimeout(resolve, 20));
      events.push("upgrade done");
    });
    expect(events).toEqual([
      "a setup",
      "b setup",
      "a test ClusterUpgrade",
      "b test ClusterUpgrade",
      "upgrade starts",
      "upgrade done",
      "a checked after",
      "b checked after",
    ]);
  });

  it("finishes the upgrade when a test fails during it, and reports every failure by test name", async () => {
    const events: string[] = [];
    const failing = recording("service-upgrade", events, {
      test: () => Promise.reject(new Error("timed out waiting for the load balancer")),
    });
    const run = runUpgradeSuite(ctx, [failing, recording("rs", events)], "MasterUpgrade", async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      events.push("upgrade done");
      throw new Error("control plane had kube-apiserver version 1.32.0 which does not start with 1.33.0");
    });
    await expect(run).rejects.toThrow(
      "control plane had kube-apiserver version 1.32.0 which does not start with 1.33.0\nservice-upgrade: timed out waiting for the load balancer",
    );
    expect(events).toContain("upgrade done");
    expect(events).toContain("rs checked after");
  });

  it("does not upgrade when a setup failed", async () => {
    let upgraded = false;
    const broken = recording("rs", [], { setup: () => Promise.reject(new Error("no replicas ready")) });
    await expect(runUpgradeSuite(ctx, [broken], "ClusterUpgrade", () => Promise.resolve(void (upgraded = true)))).rejects.toThrow(
      "rs: no replicas ready",
    );
    expect(upgraded).toBe(false);
  });
});
