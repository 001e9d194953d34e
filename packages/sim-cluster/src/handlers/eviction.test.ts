import type { KubeObject } from "@kubekit/generic-controlplane";
import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../../test/kubectl.js";
import { startSimCluster, type SimCluster } from "../cluster.js";
import { PODS } from "../refs.js";

let cluster: SimCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

type Pod = KubeObject & {
  metadata: { deletionTimestamp?: string; deletionGracePeriodSeconds?: number };
  status: { phase?: string; conditions?: Array<{ type: string; status: string; reason?: string; message?: string }> };
};

async function evict(
  url: string,
  name: string,
  body: Record<string, unknown>,
): Promise<{ status: number; json: { reason?: string; message?: string; status?: string } }> {
  const response = await fetch(`${url}/api/v1/namespaces/default/pods/${name}/eviction`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ apiVersion: "policy/v1", kind: "Eviction", metadata: { name, namespace: "default" }, ...body }),
  });
  return { status: response.status, json: (await response.json()) as { reason?: string; message?: string; status?: string } };
}

describe("pods/eviction", () => {
  it("deletes the pod gracefully with the eviction's deleteOptions, as upstream's EvictionREST without a disruption budget", async () => {
    cluster = await startSimCluster({ nodes: 1, podShutdownMs: 2_000 });
    const client = new KubeClient({ server: cluster.url });
    try {
      await client.create(PODS, "default", { metadata: { name: "web" }, spec: { containers: [{ name: "c", image: "x" }] } });
      await eventually("web running", async () =>
        (await client.get<Pod>(PODS, "default", "web")).status.phase === "Running" ? true : undefined,
      );

      const mismatch = await evict(cluster.url, "web", { metadata: { name: "other" } });
      expect(mismatch).toMatchObject({
        status: 400,
        json: { reason: "BadRequest", message: "name in URL does not match name in Eviction object" },
      });
      expect((await evict(cluster.url, "absent", {})).status).toBe(404);

      const evicted = await evict(cluster.url, "web", { deleteOptions: { gracePeriodSeconds: 30 } });
      expect(evicted).toMatchObject({ status: 201, json: { status: "Success" } });
      const terminating = await client.get<Pod>(PODS, "default", "web");
      expect(terminating.metadata.deletionTimestamp).toBeDefined();
      expect(terminating.metadata.deletionGracePeriodSeconds).toBe(30);
      // PodDisruptionConditions: the pod says why it goes, and its kubelet keeps the condition.
      expect(terminating.status.conditions).toContainEqual(
        expect.objectContaining({
          type: "DisruptionTarget",
          status: "True",
          reason: "EvictionByEvictionAPI",
          message: "Eviction API: evicting",
        }),
      );
      await eventually(
        "the kubelet to finish the eviction",
        async () => ((await client.list<Pod>(PODS, "default")).items.length === 0 ? true : undefined),
        15_000,
      );
    } finally {
      client.close();
    }
  }, 30_000);

  it("is listed in discovery as kubectl drain looks for it", async () => {
    cluster = await startSimCluster({ nodes: 1 });
    const resources = (await (await fetch(`${cluster.url}/api/v1`)).json()) as {
      resources: Array<{ name: string; kind: string; group?: string; version?: string; verbs: string[] }>;
    };
    expect(resources.resources.find((r) => r.name === "pods/eviction")).toMatchObject({
      kind: "Eviction",
      group: "policy",
      version: "v1",
      verbs: ["create"],
    });
  });
});
