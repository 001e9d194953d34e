import { DaemonSet } from "kubernetes-models/apps/v1";
import { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from "kubernetes-models/rbac.authorization.k8s.io/v1";
import { PriorityClass } from "kubernetes-models/scheduling.k8s.io/v1";
import { ServiceAccount } from "kubernetes-models/v1";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { balloonManifests, manifestList, manifestsToYaml } from "./manifests.js";
import { BALLOON_CAPACITY_ANNOTATION, BALLOON_LABEL } from "./names.js";
import { parseResourceList } from "./resource-list.js";

/** Validates an object against the upstream OpenAPI schema of its kind (kubernetes-models). */
function validateUpstream(object: { kind?: string }): void {
  // Each model takes its own shape; the schema check is the point, so hand the object over as is.
  const models: Record<string, new (data: never) => { validate(): void }> = {
    DaemonSet,
    PriorityClass,
    ServiceAccount,
    ClusterRole,
    ClusterRoleBinding,
    Role,
    RoleBinding,
  };
  const Model = models[object.kind ?? ""];
  if (!Model) throw new Error(`no schema for kind ${String(object.kind)}`);
  new Model(object as never).validate();
}

describe("balloonManifests", () => {
  const bundle = balloonManifests();

  it("prints plain YAML with no anchors or aliases, even where objects share a value", () => {
    const text = manifestsToYaml(bundle);
    expect(text).not.toMatch(/[&*]a\d/);
    for (const doc of parseAllDocuments(text)) expect(doc.toString()).not.toMatch(/: [&*]\w/);
  });

  it("can give the balloon a memory limit equal to its request, so it never swaps under LimitedSwap", () => {
    const swapSafe = balloonManifests({ memoryLimit: true, requests: parseResourceList("cpu=1m,memory=4Mi") });
    const container = swapSafe.daemonSet.spec?.template.spec?.containers[0];
    expect(container?.resources).toEqual({ requests: { cpu: "1m", memory: "4Mi" }, limits: { memory: "4Mi" } });
    validateUpstream(swapSafe.daemonSet);
    expect(balloonManifests().daemonSet.spec?.template.spec?.containers[0]?.resources?.limits).toBeUndefined();
  });

  it("validates against the upstream schemas, object by object and after a YAML round trip", () => {
    for (const object of manifestList(bundle)) validateUpstream(object);
    const documents = parseAllDocuments(manifestsToYaml(bundle)).map((doc) => doc.toJS() as { kind: string });
    expect(documents.map((doc) => doc.kind)).toEqual([
      "PriorityClass",
      "ServiceAccount",
      "ClusterRole",
      "ClusterRoleBinding",
      "Role",
      "RoleBinding",
      "DaemonSet",
    ]);
    for (const document of documents) validateUpstream(document);
  });

  it("the schema check can fail: a malformed DaemonSet is rejected", () => {
    const broken = structuredClone(bundle.daemonSet) as unknown as { spec: { template: { spec: { containers: unknown } } } };
    broken.spec.template.spec.containers = "balloon";
    expect(() => validateUpstream(broken as unknown as { kind: string })).toThrow();
  });

  it("builds a PriorityClass that never preempts and stays below system-critical", () => {
    expect(bundle.priorityClass).toMatchObject({
      metadata: { name: "node-balloon" },
      value: 1_000_000_000,
      preemptionPolicy: "Never",
      globalDefault: false,
    });
    expect(() => balloonManifests({ priority: 2_000_000_000 })).toThrow(/at most 1000000000/);
    expect(() => balloonManifests({ name: "system-node-balloon" })).toThrow(/system- prefix is reserved/);
  });

  it("builds a kube-system DaemonSet of pause pods with requests only, OnDelete, tolerating everything", () => {
    const ds = bundle.daemonSet;
    const pod = ds.spec?.template.spec;
    const container = pod?.containers[0];
    expect(ds.metadata?.namespace).toBe("kube-system");
    expect(ds.spec?.updateStrategy).toEqual({ type: "OnDelete" });
    expect(pod?.priorityClassName).toBe("node-balloon");
    expect(pod?.tolerations).toEqual([{ operator: "Exists" }]);
    expect(container?.image).toMatch(/^registry\.k8s\.io\/pause:/);
    expect(container?.resources).toEqual({ requests: { cpu: "1m", memory: "1Mi" } });
    expect(container?.resizePolicy).toEqual([
      { resourceName: "cpu", restartPolicy: "NotRequired" },
      { resourceName: "memory", restartPolicy: "NotRequired" },
    ]);
    expect(ds.spec?.template.metadata?.labels?.[BALLOON_LABEL]).toBe("true");
    expect(ds.spec?.template.metadata?.annotations?.[BALLOON_CAPACITY_ANNOTATION]).toBe("nonexistent-capacity");
    expect(ds.spec?.selector.matchLabels).toEqual(ds.spec?.template.metadata?.labels);
  });

  it("grants the agent read on pods and nodes, and pods/resize only in the balloon namespace", () => {
    expect(bundle.clusterRole.rules).toEqual([
      { apiGroups: [""], resources: ["nodes"], verbs: ["get", "list", "watch"] },
      { apiGroups: [""], resources: ["pods"], verbs: ["get", "list", "watch"] },
    ]);
    expect(bundle.role.metadata?.namespace).toBe("kube-system");
    expect(bundle.role.rules).toEqual([{ apiGroups: [""], resources: ["pods/resize"], verbs: ["get", "patch", "update"] }]);
    for (const binding of [bundle.clusterRoleBinding, bundle.roleBinding]) {
      expect(binding.subjects).toEqual([{ kind: "ServiceAccount", name: "node-balloon-resizer", namespace: "kube-system" }]);
    }
  });

  it("honours options and still validates", () => {
    const custom = balloonManifests({
      name: "balloon",
      namespace: "node-sizing",
      image: "example.com/pause:1",
      requests: parseResourceList("cpu=10m,memory=16Mi"),
      priority: 500_000,
    });
    for (const object of manifestList(custom)) validateUpstream(object);
    expect(custom.daemonSet.metadata?.namespace).toBe("node-sizing");
    expect(custom.daemonSet.spec?.template.spec?.containers[0]?.resources?.requests).toEqual({ cpu: "10m", memory: "16Mi" });
    expect(() => balloonManifests({ requests: parseResourceList("cpu=0,memory=0") })).toThrow(/BestEffort/);
    expect(() => balloonManifests({ requests: parseResourceList("ephemeral-storage=1Gi") })).toThrow(/only change cpu and memory/);
    expect(() => balloonManifests({ namespace: "Kube_System" })).toThrow(/namespace/);
  });
});
