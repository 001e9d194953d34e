import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../../test/kubectl.js";
import { startSimCluster, type SimCluster } from "../cluster.js";
import type { Pod } from "../resources/pods.js";
import { PODS } from "../refs.js";

let cluster: SimCluster | undefined;
let client: KubeClient | undefined;
afterEach(async () => {
  client?.close();
  client = undefined;
  await cluster?.close();
  cluster = undefined;
});

async function start(options: Parameters<typeof startSimCluster>[0] = {}): Promise<KubeClient> {
  cluster = await startSimCluster({ nodes: 1, ...options });
  client = new KubeClient({ server: cluster.url });
  return client;
}

const waitingReason = (pod: Pod) => (pod.status?.containerStatuses?.[0]?.state?.["waiting"] as { reason?: string } | undefined)?.reason;

describe("image pulls", { timeout: 20_000 }, () => {
  it("a pod whose image does not resolve waits in ErrImagePull, then ImagePullBackOff, Pending and not ready", async () => {
    const c = await start();
    await c.create(PODS, "default", {
      metadata: { name: "nopull" },
      spec: { containers: [{ name: "c", image: "foo.invalid/none:latest" }] },
    });
    const first = await eventually("ErrImagePull", async () => {
      const pod = await c.get<Pod>(PODS, "default", "nopull");
      return waitingReason(pod) === "ErrImagePull" ? pod : undefined;
    });
    expect(first.status).toMatchObject({ phase: "Pending" });
    expect(first.status?.podIP).toBeDefined();
    expect(first.status?.containerStatuses?.[0]).toMatchObject({
      ready: false,
      started: false,
      imageID: "",
    });
    expect((first.status?.containerStatuses?.[0]?.state?.["waiting"] as { message?: string }).message).toContain(
      'failed to pull and unpack image "foo.invalid/none:latest"',
    );
    expect(first.status?.conditions?.find((x) => x.type === "Ready")).toMatchObject({
      status: "False",
      reason: "ContainersNotReady",
      message: "containers with unready status: [c]",
    });

    const backingOff = await eventually("ImagePullBackOff", async () => {
      const pod = await c.get<Pod>(PODS, "default", "nopull");
      return waitingReason(pod) === "ImagePullBackOff" ? pod : undefined;
    });
    expect(backingOff.status?.containerStatuses?.[0]?.state).toEqual({
      waiting: { reason: "ImagePullBackOff", message: 'Back-off pulling image "foo.invalid/none:latest"' },
    });
    expect(backingOff.status?.phase).toBe("Pending");

    // The image is the field a pod update may change: one that pulls starts the container.
    await c.patch(
      PODS,
      "default",
      "nopull",
      { spec: { containers: [{ name: "c", image: "nginx" }] } },
      "application/strategic-merge-patch+json",
    );
    const running = await eventually("Running", async () => {
      const pod = await c.get<Pod>(PODS, "default", "nopull");
      return pod.status?.phase === "Running" ? pod : undefined;
    });
    expect(running.status?.containerStatuses?.[0]).toMatchObject({ ready: true, image: "nginx", state: { running: {} } });
  });

  it("takes the rule from the imagePullFails option", async () => {
    const c = await start({ imagePullFails: (image) => image.startsWith("private.example/") });
    await c.create(PODS, "default", {
      metadata: { name: "private" },
      spec: { containers: [{ name: "c", image: "private.example/app:1" }] },
    });
    await c.create(PODS, "default", { metadata: { name: "public" }, spec: { containers: [{ name: "c", image: "foo:non-existent" }] } });
    await eventually("the private image failing", async () =>
      waitingReason(await c.get<Pod>(PODS, "default", "private")) === "ErrImagePull" ? true : undefined,
    );
    await eventually("the other running", async () =>
      (await c.get<Pod>(PODS, "default", "public")).status?.phase === "Running" ? true : undefined,
    );
  });
});
