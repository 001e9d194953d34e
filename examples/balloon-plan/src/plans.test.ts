import { execFile, execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { resourceListStrings } from "@kubekit/balloon";
import { beforeAll, describe, expect, it } from "vitest";
import { planTargets } from "./plans.js";

const exampleDir = fileURLToPath(new URL("..", import.meta.url));
const sample = fileURLToPath(new URL("../sample/node-a.yaml", import.meta.url));
const main = fileURLToPath(new URL("../dist/main.js", import.meta.url));
const run = promisify(execFile);

describe("planTargets on the sample node", () => {
  // node-a: allocatable 7910m cpu, 31730784Ki memory. Active pods besides the balloon request
  // web 1500m + proxy sidecar 100m + worker 1 (from its limit) = 2600m cpu, 3Gi + 128Mi + 2Gi = 5248Mi.
  const plans = planTargets(readFileSync(sample, "utf8"), ["cpu=6,memory=24Gi", "cpu=2600m,memory=6Gi", "cpu=2", "cpu=8,memory=64Gi"]);

  it("shrinks the node by growing the balloon to allocatable − target, rounded to MiB", () => {
    const [first] = plans;
    expect(first?.plan.decision).toBe("resize");
    expect(first?.plan.balloonPod).toBe("node-balloon-x7k2p");
    // 31730784Ki = 30987Mi + 96Ki; minus 24Gi (24576Mi) = 6411.09Mi → rounded up to 6412Mi.
    expect(resourceListStrings(first!.plan.balloon)).toEqual({ cpu: "1910m", memory: "6412Mi" });
  });

  it("fits a cpu target exactly equal to what the other pods request", () => {
    expect(plans[1]?.plan.decision).toBe("resize");
    // cpu: 7910m − 2600m = 5310m exactly; memory: 30987.09Mi − 6144Mi rounds up to 24844Mi.
    expect(resourceListStrings(plans[1]!.plan.balloon)).toEqual({ cpu: "5310m", memory: "24844Mi" });
  });

  it("refuses a target below what the running pods request (the finished job does not count)", () => {
    const plan = plans[2]!.plan;
    expect(plan.decision).toBe("refused");
    if (plan.decision !== "refused") return;
    expect(plan.refusals.map((r) => [r.resource, r.otherPods.toString(), r.room.toString()])).toEqual([["cpu", "2600m", "5310m"]]);
  });

  it("clamps a target above allocatable to the floor", () => {
    const plan = plans[3]!.plan;
    expect(plan.decision).toBe("unchanged");
    expect(plan.resources.map((r) => r.limitedBy)).toEqual(["floor", "floor"]);
  });
});

describe("the balloon-plan binary", () => {
  beforeAll(() => {
    if (!existsSync(main) || statSync(main).mtimeMs < statSync(fileURLToPath(new URL("./main.ts", import.meta.url))).mtimeMs) {
      execFileSync("npm", ["run", "build"], { cwd: exampleDir, stdio: "ignore" });
    }
  }, 120_000);

  it("prints one plan per target", async () => {
    const { stdout } = await run(process.execPath, [main, sample, "--target", "cpu=6,memory=24Gi", "--target", "cpu=2"]);
    expect(stdout).toContain("== node node-a, balloon node-balloon-x7k2p, target cpu=6,memory=24Gi\ndecision: resize");
    expect(stdout).toContain("balloon requests: cpu=1910m,memory=6412Mi");
    expect(stdout).toContain("refused cpu: the balloon needs 5910m, but other pods request 2600m of 7910m allocatable, leaving 5310m");
  });

  it("fails with the bad value named, exit code 2 as for any bad usage", async () => {
    const failure = await run(process.execPath, [main, sample, "--target", "cpu=two"]).catch(
      (error: unknown) => error as { code: number; stderr: string },
    );
    expect(failure).toMatchObject({ code: 2 });
    expect((failure as { stderr: string }).stderr).toContain('invalid quantity "two"');
  });
});
