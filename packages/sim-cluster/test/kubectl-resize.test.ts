// kubectl 1.32 acceptance for in-place resize: `kubectl patch pod --subresource resize` grows and
// shrinks a pod within the node's allocatable and reports Deferred / Infeasible as the kubelet does.
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
  // One node with 4 CPUs and 16Gi, as the default capacity.
  cluster = await startSimCluster({ nodes: 1 });
  dir = await mkdtemp(join(tmpdir(), "sim-cluster-kubectl-resize-"));
  kubeconfig = join(dir, "kubeconfig");
  await cluster.writeKubeconfig(kubeconfig);
});

afterAll(async () => {
  await cluster?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function createPod(name: string, cpu: string, memory = "256Mi"): Promise<void> {
  const file = join(dir, `${name}.json`);
  const pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name },
    spec: { containers: [{ name: "c1", image: "x", resources: { requests: { cpu, memory } } }] },
  };
  await writeFile(file, JSON.stringify(pod));
  expect(await run("create", "-f", file)).toMatchObject({ code: 0, stdout: `pod/${name} created\n` });
  await eventually(`${name} Running`, async () =>
    (await run("get", "pod", name, "-o", "jsonpath={.status.phase}")).stdout === "Running" ? true : undefined,
  );
}

const resizeTo = (name: string, cpu: string) =>
  run(
    "patch",
    "pod",
    name,
    "--subresource",
    "resize",
    "-p",
    JSON.stringify({ spec: { containers: [{ name: "c1", resources: { requests: { cpu } } }] } }),
  );
const jsonpath = async (name: string, path: string) => (await run("get", "pod", name, "-o", `jsonpath=${path}`)).stdout;
const pendingOf = (name: string) =>
  jsonpath(name, '{.status.conditions[?(@.type=="PodResizePending")].reason}|{.status.conditions[?(@.type=="PodResizePending")].message}');
const allocatedCpu = (name: string) => jsonpath(name, "{.status.observedGeneration}|{.status.containerStatuses[0].allocatedResources.cpu}");

describe("kubectl 1.32 patch --subresource resize", { timeout: 60_000 }, () => {
  it("grows and shrinks a pod within the node's allocatable", async () => {
    await createPod("web", "500m");
    expect(await resizeTo("web", "1500m")).toMatchObject({ code: 0, stdout: "pod/web patched\n" });
    await eventually("1500m allocated", async () => ((await allocatedCpu("web")) === "2|1500m" ? true : undefined));
    expect(
      await jsonpath(
        "web",
        "{.spec.containers[0].resources.requests.cpu}|{.status.containerStatuses[0].resources.requests.cpu}|{.status.containerStatuses[0].restartCount}",
      ),
    ).toBe("1500m|1500m|0");
    expect(await resizeTo("web", "250m")).toMatchObject({ code: 0, stdout: "pod/web patched\n" });
    await eventually("250m allocated", async () => ((await allocatedCpu("web")) === "3|250m" ? true : undefined));
    expect(await pendingOf("web")).toBe("|");
  });

  it("reports an upsize beyond allocatable Infeasible and one that does not fit beside others Deferred", async () => {
    await createPod("big", "1");
    expect((await resizeTo("big", "5")).code).toBe(0);
    await eventually("Infeasible", async () =>
      (await pendingOf("big")) === "Infeasible|Node didn't have enough capacity: cpu, requested: 5000, capacity: 4000" ? true : undefined,
    );
    // web holds 250m, big 1: 3 CPUs more than big's do not fit beside web.
    expect((await resizeTo("big", "4")).code).toBe(0);
    await eventually("Deferred", async () =>
      (await pendingOf("big")) === "Deferred|Node didn't have enough resource: cpu, requested: 4000, used: 250, capacity: 4000"
        ? true
        : undefined,
    );
    expect(await allocatedCpu("big")).toBe("3|1");
    // Room frees when web goes: the deferred resize is granted.
    expect((await run("delete", "pod", "web")).code).toBe(0);
    await eventually("4 CPUs allocated", async () => ((await allocatedCpu("big")) === "3|4" ? true : undefined));
    expect(await pendingOf("big")).toBe("|");
    expect((await run("delete", "pod", "big")).code).toBe(0);
  });

  it("refuses a resize that changes the QoS class, and resources through a plain patch", async () => {
    await createPod("fixed", "100m");
    const qos = await run(
      "patch",
      "pod",
      "fixed",
      "--subresource",
      "resize",
      "-p",
      '{"spec":{"containers":[{"name":"c1","resources":{"limits":{"cpu":"100m","memory":"256Mi"}}}]}}',
    );
    expect(qos.code).toBe(1);
    expect(qos.stderr).toContain(
      'The Pod "fixed" is invalid: spec: Invalid value: "Burstable": Pod QOS Class may not change as a result of resizing',
    );
    const plain = await run(
      "patch",
      "pod",
      "fixed",
      "-p",
      '{"spec":{"containers":[{"name":"c1","resources":{"requests":{"cpu":"200m"}}}]}}',
    );
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain("pod updates may not change fields other than");
  });
});
