import { isControlPlaneError, type KubeObject } from "@kubekit/generic-controlplane";
import { createResourceStore, type ResourceStore } from "@kubekit/generic-controlplane/registry";
import { createMemoryStorage } from "@kubekit/generic-controlplane/storage";
import { afterEach, describe, expect, it } from "vitest";
import { podResizeResource } from "./pod-resize.js";
import type { Container } from "./pod-spec.js";
import { podsResource, type Pod } from "./pods.js";

const storages: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(storages.splice(0).map((s) => s.close()));
});

/** The pods store and the pods/resize store over one storage, as the cluster serves them. */
function stores(): { pods: ResourceStore; resize: ResourceStore } {
  const storage = createMemoryStorage({ compactInterval: 0 });
  storages.push(storage);
  return { pods: createResourceStore(podsResource, storage), resize: createResourceStore(podResizeResource, storage) };
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (isControlPlaneError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("expected the resize to be refused");
}

function podWith(resources: Container["resources"], extra: Partial<Container> = {}, restartPolicy?: string): KubeObject {
  return {
    metadata: { name: "p", labels: { app: "a" } },
    spec: { ...(restartPolicy ? { restartPolicy } : {}), containers: [{ name: "c1", image: "x", resources, ...extra }] },
  };
}

/** Sends `change` to the container through pods/resize, as `kubectl patch --subresource resize` does. */
function resizeTo(resize: ResourceStore, change: (container: Container, pod: Pod) => void): Promise<KubeObject> {
  return resize.guaranteedUpdate("default", "p", (current) => {
    const pod = current as Pod;
    change(pod.spec!.containers![0]!, pod);
    return pod;
  });
}

describe("pods/resize (ValidatePodResize, podResizeStrategy)", () => {
  it("writes only resources and the resize policy, and bumps metadata.generation", async () => {
    const { pods, resize } = stores();
    const created = (await pods.create(
      "default",
      podWith({ requests: { cpu: "100m", memory: "100Mi" }, limits: { cpu: "200m", memory: "200Mi" } }),
    )) as Pod;
    expect(created.metadata?.generation).toBe(1);
    const resized = (await resizeTo(resize, (c, pod) => {
      c.resources = { requests: { cpu: "150m", memory: "100Mi" }, limits: { cpu: "300m", memory: "200Mi" } };
      c["resizePolicy"] = [{ resourceName: "memory", restartPolicy: "RestartContainer" }];
      c.image = "changed";
      pod.metadata!.labels = { app: "changed" };
    })) as Pod;
    const container = resized.spec!.containers![0]!;
    expect(container.resources).toEqual({ requests: { cpu: "150m", memory: "100Mi" }, limits: { cpu: "300m", memory: "200Mi" } });
    expect(container["resizePolicy"]).toEqual([{ resourceName: "memory", restartPolicy: "RestartContainer" }]);
    expect(container.image).toBe("x");
    expect(resized.metadata?.labels).toEqual({ app: "a" });
    expect(resized.metadata?.generation).toBe(2);
    // A resize that changes nothing keeps the generation.
    const same = (await resizeTo(resize, () => undefined)) as Pod;
    expect(same.metadata?.generation).toBe(2);
  });

  it("refuses a change of QoS class, naming the class the pod has (e2e: BestEffort pod - try requesting memory, expect error)", async () => {
    const { pods, resize } = stores();
    await pods.create("default", podWith(undefined));
    const refused = await refusal(resizeTo(resize, (c) => (c.resources = { requests: { memory: "400Mi" } })));
    expect(refused).toEqual({
      code: "Invalid",
      message: 'Pod "p" is invalid: spec: Invalid value: "BestEffort": Pod QOS Class may not change as a result of resizing',
    });
  });

  it("refuses moving a Guaranteed pod's limit alone, and takes requests and limits moved together", async () => {
    const { pods, resize } = stores();
    await pods.create("default", podWith({ limits: { cpu: "100m", memory: "200Mi" } }));
    const refused = await refusal(resizeTo(resize, (c) => (c.resources!.limits!["cpu"] = "200m")));
    expect(refused.message).toBe(
      'Pod "p" is invalid: spec: Invalid value: "Guaranteed": Pod QOS Class may not change as a result of resizing',
    );
    const resized = (await resizeTo(
      resize,
      (c) => (c.resources = { requests: { cpu: "200m", memory: "400Mi" }, limits: { cpu: "200m", memory: "400Mi" } }),
    )) as Pod;
    expect(resized.status?.qosClass).toBe("Guaranteed");
  });

  it("refuses removing requests or limits (e2e: Burstable QoS pod ... remove memory limits)", async () => {
    const { pods, resize } = stores();
    await pods.create("default", podWith({ requests: { cpu: "200m", memory: "250Mi" }, limits: { cpu: "400m", memory: "500Mi" } }));
    const limits = await refusal(resizeTo(resize, (c) => delete c.resources!.limits!["memory"]));
    expect(limits.message).toBe('Pod "p" is invalid: spec.containers[0].resources.limits: Forbidden: resource limits cannot be removed');
    const requests = await refusal(resizeTo(resize, (c) => delete c.resources!.requests!["cpu"]));
    expect(requests.message).toBe(
      'Pod "p" is invalid: spec.containers[0].resources.requests: Forbidden: resource requests cannot be removed',
    );
  });

  it("lets only cpu and memory change", async () => {
    const { pods, resize } = stores();
    await pods.create("default", podWith({ requests: { cpu: "100m", "ephemeral-storage": "1Gi" } }));
    const refused = await refusal(resizeTo(resize, (c) => (c.resources!.requests!["ephemeral-storage"] = "2Gi")));
    expect(refused.message).toBe('Pod "p" is invalid: spec: Forbidden: only cpu and memory resources are mutable');
    // The same quantity written another way is no change.
    await resizeTo(resize, (c) => (c.resources!.requests = { cpu: "200m", "ephemeral-storage": "1024Mi" }));
  });

  it("checks the result under create rules: requests within limits", async () => {
    const { pods, resize } = stores();
    await pods.create("default", podWith({ requests: { cpu: "100m" }, limits: { cpu: "200m" } }));
    const refused = await refusal(resizeTo(resize, (c) => (c.resources!.requests!["cpu"] = "300m")));
    expect(refused.message).toBe(
      'Pod "p" is invalid: spec.containers[0].resources.requests: Invalid value: "300m": must be less than or equal to cpu limit of 200m',
    );
  });

  it("refuses a pod whose running containers report no resources (a node without resize support)", async () => {
    const { pods, resize } = stores();
    await pods.create("default", podWith({ requests: { cpu: "100m" } }));
    await pods.guaranteedUpdate(
      "default",
      "p",
      (pod) => ({ ...pod, status: { ...(pod as Pod).status, containerStatuses: [{ name: "c1", state: { running: {} } }] } }),
      { subresource: "status" },
    );
    const refused = await refusal(resizeTo(resize, (c) => (c.resources!.requests!["cpu"] = "200m")));
    expect(refused.message).toBe('Pod "p" is invalid: spec: Forbidden: Pod running on node without support for resize');
  });

  it("validates resizePolicy: cpu and memory only, known policies, NotRequired for restartPolicy Never", async () => {
    const { pods } = stores();
    const refused = await refusal(
      pods.create(
        "default",
        podWith(
          { requests: { cpu: "1" } },
          {
            resizePolicy: [
              { resourceName: "cpu", restartPolicy: "RestartContainer" },
              { resourceName: "gpu", restartPolicy: "Sometimes" },
            ],
          },
          "Never",
        ),
      ),
    );
    expect(refused.message).toContain(
      `spec.containers[0].resizePolicy: Invalid value: "RestartContainer": must be 'NotRequired' when \`restartPolicy\` is 'Never'`,
    );
    expect(refused.message).toContain('spec.containers[0].resizePolicy: Unsupported value: "gpu": supported values: "cpu", "memory"');
    expect(refused.message).toContain(
      'spec.containers[0].resizePolicy: Unsupported value: "Sometimes": supported values: "NotRequired", "RestartContainer"',
    );
  });

  it("leaves resources immutable through an ordinary pod update", async () => {
    const { pods } = stores();
    await pods.create("default", podWith({ requests: { cpu: "100m" } }));
    const refused = await refusal(
      pods.guaranteedUpdate("default", "p", (pod) => {
        (pod as Pod).spec!.containers![0]!.resources = { requests: { cpu: "200m" } };
        return pod;
      }),
    );
    expect(refused.message).toContain("spec: Forbidden: pod updates may not change fields other than");
  });
});
