import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { killAllChildren, run } from "../../../packages/generic-controlplane/test/harness/run.js";
import { findKubectl132 } from "../../../packages/generic-controlplane/test/harness/tools.js";
import { startBinary, type RunningBinary } from "./binary.test-support.js";
import { comparable, shellWords, walkthroughSteps } from "./readme-walkthrough.js";

// The README's walkthrough, run as written: every `$ kubectl ...` of its console blocks against
// the built binary with kubectl 1.32, from this package's directory (the walkthrough's files are
// relative to it), comparing what kubectl prints with what the README shows.

const packageDir = join(import.meta.dirname, "..");
const steps = walkthroughSteps(readFileSync(join(packageDir, "README.md"), "utf8"));

let dir: string;
let binary: RunningBinary;
let kubectl: string;

beforeAll(async () => {
  kubectl = findKubectl132();
  dir = mkdtempSync(join(tmpdir(), "kube-hyper-mini-readme-"));
  binary = await startBinary(
    ["--port", "0", "--storage", "memory", "--kubeconfig", join(dir, "kubeconfig"), "--cert-dir", join(dir, "pki"), "--quiet"],
    dir,
  );
});

afterAll(async () => {
  killAllChildren();
  await binary?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** kubectl's two ways of reporting a refused request: these, and only these, exit non-zero. */
const FAILURE = /^(Error from server|The \S+ "[^"]+" is invalid: )/;

describe("the README walkthrough with kubectl 1.32", () => {
  it("has commands to run", () => {
    expect(steps.length).toBeGreaterThanOrEqual(8);
    for (const step of steps) expect(step.command, "the walkthrough runs kubectl only").toMatch(/^kubectl /);
  });

  it("prints what the README shows, step by step", async () => {
    for (const step of steps) {
      const [, ...args] = shellWords(step.command);
      const result = await run(kubectl, args, {
        cwd: packageDir,
        env: { HOME: dir, KUBECONFIG: join(dir, "kubeconfig"), KUBECTL_EXTERNAL_DIFF: "" },
      });
      expect(comparable(result.stdout + result.stderr), `$ ${step.command}`).toBe(comparable(step.output));
      expect(result.code === 0, `$ ${step.command} exited ${result.code}`).toBe(!FAILURE.test(step.output));
    }
  });
});
