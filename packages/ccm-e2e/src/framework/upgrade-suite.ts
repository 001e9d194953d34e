import { fail } from "./assert.js";
import type { TestContext } from "./context.js";

/** `upgrades.UpgradeType`: what is being upgraded (a downgrade runs as a `ClusterUpgrade`, as upstream). */
export type UpgradeType = "MasterUpgrade" | "NodeUpgrade" | "ClusterUpgrade";

/** `upgrades.Test`: a workload set up before the upgrade and checked during and after it. */
export interface UpgradeTest {
  /** Upstream's `Name()`, which prefixes its failures. */
  readonly name: string;
  /** Creates the workload and checks it works before the upgrade starts. */
  setup(ctx: TestContext): Promise<void>;
  /** Runs while the upgrade does; `done` resolves when the upgrade finished. */
  test(ctx: TestContext, done: Promise<void>, upgrade: UpgradeType): Promise<void>;
}

/**
 * `upgrades.RunUpgradeSuite` (its chaos monkey): every test's setup, then the upgrade with every
 * test running alongside it, each told when the upgrade is done. The upgrade runs to its end even
 * when a test fails during it. Every failure is reported, one line each, the upgrade's first.
 * Unlike upstream, a failed setup ends the test before the upgrade: there is nothing to check it with.
 */
export async function runUpgradeSuite(
  ctx: TestContext,
  tests: readonly UpgradeTest[],
  upgrade: UpgradeType,
  upgradeFunc: () => Promise<void>,
): Promise<void> {
  const problems = (outcomes: PromiseSettledResult<void>[]) =>
    outcomes.flatMap((outcome, index) => (outcome.status === "rejected" ? [`${tests[index]!.name}: ${messageOf(outcome.reason)}`] : []));

  const setupFailures = problems(await Promise.allSettled(tests.map((test) => test.setup(ctx))));
  if (setupFailures.length > 0) fail(setupFailures.join("\n"));

  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const running = Promise.allSettled(tests.map((test) => test.test(ctx, done, upgrade)));
  let upgradeFailure: string | undefined;
  try {
    await upgradeFunc();
  } catch (error) {
    upgradeFailure = messageOf(error);
  } finally {
    finish();
  }
  const failures = [...(upgradeFailure === undefined ? [] : [upgradeFailure]), ...problems(await running)];
  if (failures.length > 0) fail(failures.join("\n"));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
