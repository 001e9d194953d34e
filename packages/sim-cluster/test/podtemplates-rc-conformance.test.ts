/**
 * Ports, with upstream's objects and assertions, of:
 * - kubernetes/kubernetes test/e2e/apimachinery/chunking.go ("Servers with support for API
 *   chunking", on 400 PodTemplates): "should return chunks of results for list calls"
 *   (conformance). Its compaction test is not ported: it waits for etcd to compact away the
 *   first page's revision, which the in-memory storage this suite runs on never does.
 * - test/e2e/common/node/podtemplates.go (conformance): "should run the lifecycle of
 *   PodTemplates", "should delete a collection of pod templates", "should replace a pod template".
 * - test/e2e/apps/rc.go (conformance): "should surface a failure condition on a common issue like
 *   exceeded quota", "should adopt matching pods on creation", "should release no longer
 *   matching pods", and the scale subresource steps of "should test the lifecycle of a
 *   ReplicationController".
 */
import { describe, expect, it } from "vitest";
import type { PodTemplate } from "../src/resources/pod-templates.js";
import type { Pod } from "../src/resources/pods.js";
import type { ReplicationController } from "../src/resources/replication-controllers.js";
import { POD_TEMPLATES, PODS, REPLICATION_CONTROLLERS } from "../src/refs.js";
import { eventually } from "./kubectl.js";
import { useSimCluster } from "./fixture.js";

const numberOfTotalResources = 400;

const sim = useSimCluster({ nodes: 1 });

describe("[sig-api-machinery] Servers with support for API chunking (test/e2e/apimachinery/chunking.go)", { timeout: 120_000 }, () => {
  it("should return chunks of results for list calls", async () => {
    const ns = await sim.newNamespace("chunking");
    const indexes = Array.from({ length: numberOfTotalResources }, (_, i) => i);
    // workqueue.ParallelizeUntil(ctx, 20, ...)
    for (let start = 0; start < indexes.length; start += 20) {
      await Promise.all(
        indexes.slice(start, start + 20).map((i) =>
          sim.client.create(POD_TEMPLATES, ns, {
            metadata: { name: `template-${String(i).padStart(4, "0")}` },
            template: { spec: { containers: [{ name: "test", image: "test2" }] } },
          }),
        ),
      );
    }
    for (let i = 0; i < 3; i++) {
      let found = 0;
      let lastRV = "";
      let cont: string | undefined;
      for (;;) {
        const limit = Math.floor(Math.random() * (numberOfTotalResources / 10)) + 1;
        const list = await sim.client.list<PodTemplate>(POD_TEMPLATES, ns, { limit: String(limit), ...(cont ? { continue: cont } : {}) });
        expect(list.items.length).toBeLessThanOrEqual(limit);
        if (lastRV === "") lastRV = list.metadata?.resourceVersion ?? "";
        expect(list.metadata?.resourceVersion).toBe(lastRV);
        const meta = list.metadata as { continue?: string; remainingItemCount?: number } | undefined;
        if (!meta?.continue) expect(meta?.remainingItemCount).toBeUndefined();
        else expect((meta.remainingItemCount ?? Number.NaN) + list.items.length + found).toBe(numberOfTotalResources);
        for (const item of list.items) {
          expect(item.metadata?.name).toBe(`template-${String(found).padStart(4, "0")}`);
          found++;
        }
        if (!meta?.continue) break;
        cont = meta.continue;
      }
      expect(found).toBe(numberOfTotalResources);
    }
    const all = await sim.client.list<PodTemplate>(POD_TEMPLATES, ns, { limit: String(numberOfTotalResources + 1) });
    expect(all.items).toHaveLength(numberOfTotalResources);
  });
});

describe("[sig-node] PodTemplates (test/e2e/common/node/podtemplates.go)", { timeout: 30_000 }, () => {
  it("should run the lifecycle of PodTemplates", async () => {
    const ns = await sim.newNamespace("podtemplate");
    const podTemplateName = `nginx-pod-template-${Math.random().toString(36).slice(2, 7)}`;
    await sim.client.create(POD_TEMPLATES, ns, {
      metadata: { name: podTemplateName, labels: { "podtemplate-static": "true" } },
      template: { spec: { containers: [{ name: "nginx", image: "registry.k8s.io/e2e-test-images/nginx:1.14-4" }] } },
    });
    const podTemplateRead = await sim.client.get<PodTemplate>(POD_TEMPLATES, ns, podTemplateName);
    expect(podTemplateRead.metadata?.name).toBe(podTemplateName);
    const patched = await sim.client.patch<PodTemplate>(
      POD_TEMPLATES,
      ns,
      podTemplateName,
      {
        metadata: { labels: { podtemplate: "patched" } },
        template: { spec: { containers: [{ name: "nginx", image: "registry.k8s.io/e2e-test-images/nginx:1.14-4" }] } },
      },
      "application/strategic-merge-patch+json",
    );
    expect(patched.metadata?.labels?.["podtemplate"]).toBe("patched");
    const podTemplateRead2 = await sim.client.get<PodTemplate>(POD_TEMPLATES, ns, podTemplateName);
    expect(podTemplateRead2.metadata?.labels?.["podtemplate"]).toBe("patched");
    await sim.client.delete(POD_TEMPLATES, ns, podTemplateName);
    const list = await sim.client.list(POD_TEMPLATES, ns, { labelSelector: "podtemplate-static=true" });
    expect(list.items).toHaveLength(0);
  });

  it("should delete a collection of pod templates", async () => {
    const ns = await sim.newNamespace("podtemplate");
    const podTemplateNames = ["podtemplate-1", "podtemplate-2", "podtemplate-3"];
    for (const name of podTemplateNames) {
      await sim.client.create(POD_TEMPLATES, ns, {
        metadata: { name, labels: { "podtemplate-set": "true" } },
        template: { spec: { containers: [{ name: "token-test", image: "registry.k8s.io/e2e-test-images/nginx:1.14-4" }] } },
      });
    }
    const listed = await sim.client.list(POD_TEMPLATES, ns, { labelSelector: "podtemplate-set=true" });
    expect(listed.items).toHaveLength(podTemplateNames.length);
    await sim.client.deleteCollection(POD_TEMPLATES, ns, {}, { labelSelector: "podtemplate-set=true" });
    const remaining = await sim.client.list(POD_TEMPLATES, ns, { labelSelector: "podtemplate-set=true" });
    expect(remaining.items).toHaveLength(0);
  });

  it("should replace a pod template", async () => {
    const ns = await sim.newNamespace("podtemplate");
    const ptName = `podtemplate-${Math.random().toString(36).slice(2, 7)}`;
    const ptResource = await sim.client.create<PodTemplate>(POD_TEMPLATES, ns, {
      metadata: { name: ptName },
      template: { spec: { containers: [{ name: "e2e-test", image: "registry.k8s.io/e2e-test-images/agnhost:2.53" }] } },
    });
    ptResource.metadata!.labels = { ...ptResource.metadata?.labels, [ptName]: "updated" };
    const updated = await sim.client.update<PodTemplate>(POD_TEMPLATES, ns, ptResource);
    expect(updated.metadata?.labels?.[ptName]).toBe("updated");
  });

  it("refuses a template whose pod spec is invalid, as ValidatePodTemplate does", async () => {
    const ns = await sim.newNamespace("podtemplate");
    await expect(
      sim.client.create(POD_TEMPLATES, ns, {
        metadata: { name: "bad" },
        template: { spec: { containers: [{ name: "Bad_Name", image: "x" }] } },
      }),
    ).rejects.toThrow(/template\.spec\.containers\[0\]\.name/);
  });
});

describe("[sig-apps] ReplicationController (test/e2e/apps/rc.go)", { timeout: 70_000 }, () => {
  const rcOf = (name: string, replicas: number, labels: Record<string, string>): ReplicationController => ({
    apiVersion: "v1",
    kind: "ReplicationController",
    metadata: { name },
    spec: {
      replicas,
      selector: labels,
      template: { metadata: { labels }, spec: { containers: [{ name, image: "registry.k8s.io/e2e-test-images/httpd:2.4.38-4" }] } },
    },
  });

  it("should surface a failure condition on a common issue like exceeded quota", async () => {
    const ns = await sim.newNamespace("rc");
    const name = "condition-test";
    const QUOTAS = { group: "", version: "v1", resource: "resourcequotas", namespaced: true };
    await sim.client.create(QUOTAS, ns, { metadata: { name }, spec: { hard: { pods: "2" } } });
    await eventually("quota status", async () =>
      (await sim.client.get<{ status?: { hard?: Record<string, string> } } & ReplicationController>(QUOTAS, ns, name)).status?.hard?.[
        "pods"
      ] === "2"
        ? true
        : undefined,
    );
    const rc = await sim.client.create<ReplicationController>(REPLICATION_CONTROLLERS, ns, rcOf(name, 3, { name }));
    const failing = await eventually(
      "ReplicaFailure condition",
      async () => {
        const current = await sim.client.get<ReplicationController>(REPLICATION_CONTROLLERS, ns, name);
        const cond = (current.status?.["conditions"] as Array<{ type: string }> | undefined)?.find((c) => c.type === "ReplicaFailure");
        return (current.status?.observedGeneration ?? 0) >= (rc.metadata?.generation ?? 0) && cond !== undefined ? cond : undefined;
      },
      60_000,
    );
    expect(failing).toMatchObject({ type: "ReplicaFailure", status: "True", reason: "FailedCreate" });
    let scaled: ReplicationController | undefined;
    while (scaled === undefined) {
      const update = await sim.client.get<ReplicationController>(REPLICATION_CONTROLLERS, ns, name);
      update.spec!.replicas = 2;
      try {
        scaled = await sim.client.update<ReplicationController>(REPLICATION_CONTROLLERS, ns, update);
      } catch (error) {
        if (!(error instanceof Error && "code" in error && error.code === 409)) throw error;
      }
    }
    await eventually(
      "no ReplicaFailure condition",
      async () => {
        const current = await sim.client.get<ReplicationController>(REPLICATION_CONTROLLERS, ns, name);
        const cond = (current.status?.["conditions"] as Array<{ type: string }> | undefined)?.find((c) => c.type === "ReplicaFailure");
        return (current.status?.observedGeneration ?? 0) >= (scaled.metadata?.generation ?? 0) && cond === undefined ? true : undefined;
      },
      60_000,
    );
  });

  it("should adopt matching pods on creation", async () => {
    const ns = await sim.newNamespace("rc");
    const name = "pod-adoption";
    await sim.client.create(PODS, ns, {
      metadata: { name, labels: { name } },
      spec: { containers: [{ name, image: "registry.k8s.io/e2e-test-images/httpd:2.4.38-4" }] },
    });
    await eventually("pod running", async () =>
      (await sim.client.get<Pod>(PODS, ns, name)).status?.phase === "Running" ? true : undefined,
    );
    const rc = await sim.client.create<ReplicationController>(REPLICATION_CONTROLLERS, ns, rcOf(name, 1, { name }));
    await eventually("adopted", async () => {
      const pod = await sim.client.get<Pod>(PODS, ns, name);
      const ref = pod.metadata?.ownerReferences?.find((r) => r.controller === true);
      return ref?.uid === rc.metadata?.uid && ref?.kind === "ReplicationController" && ref.apiVersion === "v1" ? true : undefined;
    });
    // The RC counts the adopted pod rather than creating another.
    const pods = await sim.client.list(PODS, ns);
    expect(pods.items).toHaveLength(1);
  });

  it("should release no longer matching pods", async () => {
    const ns = await sim.newNamespace("rc");
    const name = "pod-release";
    await sim.client.create(REPLICATION_CONTROLLERS, ns, rcOf(name, 1, { name }));
    const pod = await eventually("a pod", async () => (await sim.client.list<Pod>(PODS, ns, { labelSelector: `name=${name}` })).items[0]);
    await sim.client.patch(
      PODS,
      ns,
      pod.metadata?.name ?? "",
      { metadata: { labels: { name: "not-matching-name" } } },
      "application/merge-patch+json",
    );
    await eventually("released", async () => {
      const p = await sim.client.get<Pod>(PODS, ns, pod.metadata?.name ?? "");
      return p.metadata?.ownerReferences?.some((r) => r.controller === true) ? undefined : true;
    });
  });

  it("should test the lifecycle of a ReplicationController (scale subresource)", async () => {
    const ns = await sim.newNamespace("rc");
    const testRcName = "rc-test";
    await sim.client.create(REPLICATION_CONTROLLERS, ns, {
      ...rcOf(testRcName, 1, { "test-rc-static": "true" }),
      metadata: { name: testRcName, labels: { "test-rc-static": "true" } },
    });
    await eventually("1 ready replica", async () =>
      (await sim.client.get<ReplicationController>(REPLICATION_CONTROLLERS, ns, testRcName)).status?.readyReplicas === 1 ? true : undefined,
    );
    const path = `/api/v1/namespaces/${ns}/replicationcontrollers/${testRcName}/scale`;
    const scale = (await sim.client.request("GET", path)) as {
      spec?: { replicas?: number };
      status?: { replicas?: number; selector?: string };
    };
    expect(scale.spec?.replicas).toBe(1);
    expect(scale.status?.selector).toBe("test-rc-static=true");
    await sim.client.request("PUT", path, { body: { ...scale, spec: { replicas: 2 } }, contentType: "application/json" });
    await eventually("2 ready replicas", async () =>
      (await sim.client.get<ReplicationController>(REPLICATION_CONTROLLERS, ns, testRcName)).status?.readyReplicas === 2 ? true : undefined,
    );
    await sim.client.deleteCollection(REPLICATION_CONTROLLERS, ns, {}, { labelSelector: "test-rc-static=true" });
    const remaining = await sim.client.list(REPLICATION_CONTROLLERS, ns, { labelSelector: "test-rc-static=true" });
    expect(remaining.items).toHaveLength(0);
  });
});
