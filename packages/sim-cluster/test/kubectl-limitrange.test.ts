// kubectl 1.32 against a sim cluster with a LimitRange: `kubectl run` gets the namespace's
// container defaults, and a pod beyond the maximum is refused with the LimitRanger's message.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimCluster, type SimCluster } from "../src/index.js";
import { eventually, kubectl } from "./kubectl.js";

let cluster: SimCluster;
let dir: string;
let kubeconfig: string;
const run = (...args: string[]) => kubectl(kubeconfig, args);

beforeAll(async () => {
  cluster = await startSimCluster({ nodes: 1 });
  dir = await mkdtemp(join(tmpdir(), "sim-cluster-kubectl-limitrange-"));
  kubeconfig = join(dir, "kubeconfig");
  await cluster.writeKubeconfig(kubeconfig);
});

afterAll(async () => {
  await cluster?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("kubectl 1.32 with a LimitRange", { timeout: 60_000 }, () => {
  it("defaults a pod's resources from the namespace's LimitRange and refuses one over its maximum", async () => {
    const limitRange = {
      apiVersion: "v1",
      kind: "LimitRange",
      metadata: { name: "defaults" },
      spec: {
        limits: [{ type: "Container", max: { cpu: "1" }, default: { cpu: "500m", memory: "256Mi" }, defaultRequest: { cpu: "250m" } }],
      },
    };
    const file = join(dir, "limitrange.json");
    await writeFile(file, JSON.stringify(limitRange));
    expect(await run("apply", "-f", file)).toMatchObject({ code: 0, stdout: "limitrange/defaults created\n" });
    expect((await run("get", "limitranges")).stdout).toMatch(/^NAME\s+CREATED AT\ndefaults\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n$/);

    // The LimitRanger reads a watch-fed cache: the first pod after the LimitRange may race it.
    const resources = await eventually("a pod created with the defaults", async () => {
      await run("delete", "pod", "web", "--ignore-not-found", "--wait=false");
      const created = await run("run", "web", "--image=x");
      if (created.code !== 0) return undefined;
      const got = (await run("get", "pod", "web", "-o", "jsonpath={.spec.containers[0].resources}")).stdout;
      return got.includes("250m") ? got : undefined;
    });
    expect(JSON.parse(resources)).toEqual({ limits: { cpu: "500m", memory: "256Mi" }, requests: { cpu: "250m", memory: "256Mi" } });
    expect((await run("get", "pod", "web", "-o", "jsonpath={.metadata.annotations.kubernetes\\.io/limit-ranger}")).stdout).toBe(
      "LimitRanger plugin set: cpu, memory request for container web; cpu, memory limit for container web",
    );
    await eventually("web Running", async () =>
      (await run("get", "pod", "web", "-o", "jsonpath={.status.phase}")).stdout === "Running" ? true : undefined,
    );

    const big = await run(
      "run",
      "big",
      "--image=x",
      "--overrides",
      JSON.stringify({ spec: { containers: [{ name: "big", image: "x", resources: { limits: { cpu: "2" } } }] } }),
    );
    expect(big.code).not.toBe(0);
    expect(big.stderr).toContain('pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2');
  });
});
