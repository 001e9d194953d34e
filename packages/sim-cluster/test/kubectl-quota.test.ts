// kubectl 1.32 against a sim cluster with a compute quota: `kubectl create quota` limits
// requests.cpu, a pod asking for more is refused with upstream's message, one without a CPU
// request is told what to specify, and `kubectl describe quota` shows the usage.
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
  dir = await mkdtemp(join(tmpdir(), "sim-cluster-kubectl-quota-"));
  kubeconfig = join(dir, "kubeconfig");
  await cluster.writeKubeconfig(kubeconfig);
}, 60_000);

afterAll(async () => {
  await cluster?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const podWithCpu = (name: string, cpu: string | undefined) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name },
  spec: {
    containers: [{ name: "app", image: "registry.k8s.io/pause:3.10", ...(cpu === undefined ? {} : { resources: { requests: { cpu } } }) }],
  },
});

describe("kubectl 1.32 with a ResourceQuota on requests.cpu", { timeout: 60_000 }, () => {
  it("refuses a pod over the quota with upstream's message and charges one within it", async () => {
    expect(await run("create", "quota", "q", "--hard=requests.cpu=1")).toMatchObject({ code: 0, stdout: "resourcequota/q created\n" });
    await eventually("the quota's usage", async () =>
      (await run("get", "quota", "q", "-o", "jsonpath={.status.used.requests\\.cpu}")).stdout === "0" ? true : undefined,
    );

    const big = join(dir, "big.json");
    await writeFile(big, JSON.stringify(podWithCpu("big", "2")));
    const refused = await run("create", "-f", big);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'Error from server (Forbidden): error when creating "' +
        big +
        '": pods "big" is forbidden: exceeded quota: q, requested: requests.cpu=2, used: requests.cpu=0, limited: requests.cpu=1\n',
    );

    const bare = join(dir, "bare.json");
    await writeFile(bare, JSON.stringify(podWithCpu("bare", undefined)));
    expect((await run("create", "-f", bare)).stderr).toBe(
      'Error from server (Forbidden): error when creating "' +
        bare +
        '": pods "bare" is forbidden: failed quota: q: must specify requests.cpu for: app\n',
    );

    const small = join(dir, "small.json");
    await writeFile(small, JSON.stringify(podWithCpu("small", "250m")));
    expect(await run("create", "-f", small)).toMatchObject({ code: 0, stdout: "pod/small created\n" });
    expect((await run("get", "quota", "q", "-o", "jsonpath={.status.used.requests\\.cpu}")).stdout).toBe("250m");
    expect((await run("describe", "quota", "q")).stdout).toMatch(/requests\.cpu\s+250m\s+1\n/);
  });
});
