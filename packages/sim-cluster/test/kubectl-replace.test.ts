// Port of test/e2e/kubectl/kubectl.go, "Kubectl replace should update a single-container pod's
// image" (conformance: Kubectl, replace), with kubectl 1.32. `kubectl get -o json` prints the pod
// with its keys sorted, so the replace carries the same values in another order than stored.
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

const httpdImage = "registry.k8s.io/e2e-test-images/httpd:2.4.38-4";
const busyboxImage = "registry.k8s.io/e2e-test-images/busybox:1.37.0-1";
const podName = "e2e-test-httpd-pod";

beforeAll(async () => {
  cluster = await startSimCluster({ nodes: 1 });
  dir = await mkdtemp(join(tmpdir(), "sim-cluster-replace-"));
  kubeconfig = join(dir, "kubeconfig");
  await cluster.writeKubeconfig(kubeconfig);
});

afterAll(async () => {
  await cluster?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("kubectl 1.32: Kubectl replace", { timeout: 30_000 }, () => {
  it("should update a single-container pod's image", async () => {
    expect((await run("run", podName, `--image=${httpdImage}`, "--pod-running-timeout=2m0s", `--labels=run=${podName}`)).code).toBe(0);
    await eventually("the pod running", async () =>
      (await run("get", "pod", podName, "-o", "jsonpath={.status.phase}")).stdout === "Running" ? true : undefined,
    );

    const fetched = await run("get", "pod", podName, "-o", "json");
    expect(fetched.stdout).toContain(podName);
    // The keys come sorted (kubectl prints the object as a map), unlike the order the server stores.
    expect(Object.keys((JSON.parse(fetched.stdout) as { spec: object }).spec)).toEqual(
      Object.keys((JSON.parse(fetched.stdout) as { spec: object }).spec).sort(),
    );

    const podJSON = fetched.stdout.replace(httpdImage, busyboxImage);
    const file = join(dir, "pod.json");
    await writeFile(file, podJSON);
    expect(await run("replace", "-f", file)).toMatchObject({ code: 0, stderr: "", stdout: `pod/${podName} replaced\n` });

    const image = await run("get", "pod", podName, "-o", "jsonpath={.spec.containers[0].image}");
    expect(image.stdout).toBe(busyboxImage);
    expect((await run("delete", "pods", podName, "--wait=false")).code).toBe(0);
  });
});
