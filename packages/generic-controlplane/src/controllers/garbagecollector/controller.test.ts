import { afterEach, describe, expect, it } from "vitest";
import type { KubeObject } from "../../api/types.js";
import type { ResourceDefinition } from "../../registry/rest/resource-definition.js";
import { createResourceStore } from "../../registry/store.js";
import type { ResourceRef } from "../client.js";
import { CONFIGMAPS, SECRETS, eventually, isGoneFrom, ownerRef, startControllers, type ControllerHarness } from "../test-support.js";
import { garbageCollector } from "./controller.js";

let h: ControllerHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const ns = "default";

async function start(): Promise<ControllerHarness> {
  h = await startControllers([garbageCollector({ workers: 4 })]);
  return h;
}

async function configMap(name: string, extra: Record<string, unknown> = {}, namespace = ns): Promise<KubeObject> {
  return h!.client.create(CONFIGMAPS, namespace, { apiVersion: "v1", kind: "ConfigMap", metadata: { name, ...extra } });
}

async function secret(name: string, extra: Record<string, unknown> = {}, namespace = ns): Promise<KubeObject> {
  return h!.client.create(SECRETS, namespace, { apiVersion: "v1", kind: "Secret", metadata: { name, ...extra } });
}

async function gone(ref: ResourceRef, name: string, namespace: string | undefined = ns, timeoutMs = 10_000): Promise<void> {
  await eventually(
    `${ref.resource}/${name} to be deleted`,
    async () => ((await isGoneFrom(h!.client, ref, namespace, name)) ? true : undefined),
    timeoutMs,
  );
}

async function get(ref: ResourceRef, name: string, namespace: string | undefined = ns): Promise<KubeObject> {
  return h!.client.get(ref, namespace, name);
}

/** Lets the collector act on what it has seen: waits until both queues are idle for a moment. */
async function settle(): Promise<void> {
  let quiet = 0;
  await eventually("the garbage collector to go idle", async () => {
    const text = await h!.registry.metrics();
    const busy = /workqueue_depth\{name="garbage_collector_attempt_to_(delete|orphan)"\} [1-9]/.test(text);
    const unfinished = /workqueue_unfinished_work_seconds\{name="garbage_collector_attempt_to_(delete|orphan)"\} [1-9]/.test(text);
    quiet = busy || unfinished ? 0 : quiet + 1;
    return quiet >= 10 ? true : undefined;
  });
}

// Ports of the seven "Garbage collector" conformance tests of test/e2e/apimachinery/garbage_collector.go,
// rewritten with configmaps (owners) and secrets (dependents) instead of workloads.
describe("garbage collector conformance", () => {
  // Ports: "should delete pods created by rc when not orphaning"
  it("deletes dependents of an owner deleted in the background", async () => {
    await start();
    const owner = await configMap("rc");
    for (let i = 0; i < 3; i++)
      await secret(`pod-${i}`, { ownerReferences: [ownerRef(owner, { controller: true, blockOwnerDeletion: true })] });
    await h!.client.delete(CONFIGMAPS, ns, "rc", { propagationPolicy: "Background" });
    for (let i = 0; i < 3; i++) await gone(SECRETS, `pod-${i}`);
  });

  // Ports: "should orphan pods created by rc if delete options say so"
  it("orphans dependents when the owner is deleted with propagationPolicy Orphan", async () => {
    await start();
    const owner = await configMap("rc");
    for (let i = 0; i < 3; i++)
      await secret(`pod-${i}`, { ownerReferences: [ownerRef(owner, { controller: true, blockOwnerDeletion: true })] });
    await h!.client.delete(CONFIGMAPS, ns, "rc", { propagationPolicy: "Orphan" });
    await gone(CONFIGMAPS, "rc");
    await settle();
    for (let i = 0; i < 3; i++) expect((await get(SECRETS, `pod-${i}`)).metadata?.ownerReferences).toBeUndefined();
  });

  // Ports: "should delete RS created by deployment when not orphaning"
  it("deletes a chain of dependents (owner -> middle -> leaf) in the background", async () => {
    await start();
    const deployment = await configMap("deployment");
    const rs = await configMap("rs", { ownerReferences: [ownerRef(deployment, { controller: true, blockOwnerDeletion: true })] });
    await secret("pod", { ownerReferences: [ownerRef(rs, { controller: true, blockOwnerDeletion: true })] });
    await h!.client.delete(CONFIGMAPS, ns, "deployment", { propagationPolicy: "Background" });
    await gone(CONFIGMAPS, "rs");
    await gone(SECRETS, "pod");
  });

  // Ports: "should orphan RS created by deployment when deleteOptions.PropagationPolicy is Orphan"
  it("orphans the middle of a chain; the leaf keeps its owner", async () => {
    await start();
    const deployment = await configMap("deployment");
    const rs = await configMap("rs", { ownerReferences: [ownerRef(deployment, { controller: true, blockOwnerDeletion: true })] });
    await secret("pod", { ownerReferences: [ownerRef(rs, { controller: true, blockOwnerDeletion: true })] });
    await h!.client.delete(CONFIGMAPS, ns, "deployment", { propagationPolicy: "Orphan" });
    await gone(CONFIGMAPS, "deployment");
    await settle();
    expect((await get(CONFIGMAPS, "rs")).metadata?.ownerReferences).toBeUndefined();
    expect((await get(SECRETS, "pod")).metadata?.ownerReferences?.[0]?.uid).toBe(rs.metadata?.uid);
  });

  // Ports: "should keep the rc around until all its pods are deleted if the deleteOptions says so"
  it("keeps a foreground-deleted owner until its blocking dependents are gone", async () => {
    await start();
    const owner = await configMap("rc");
    await secret("pod-held", {
      ownerReferences: [ownerRef(owner, { controller: true, blockOwnerDeletion: true })],
      finalizers: ["example.com/hold"],
    });
    await secret("pod-free", { ownerReferences: [ownerRef(owner, { controller: true, blockOwnerDeletion: true })] });
    const deleting = await h!.client.delete(CONFIGMAPS, ns, "rc", { propagationPolicy: "Foreground" });
    expect(deleting.metadata?.finalizers).toEqual(["foregroundDeletion"]);
    await gone(SECRETS, "pod-free");
    const held = await eventually("pod-held to be marked deleted", async () => {
      const pod = await get(SECRETS, "pod-held");
      return pod.metadata?.deletionTimestamp !== undefined ? pod : undefined;
    });
    expect(held.metadata?.finalizers).toEqual(["example.com/hold"]);
    await settle();
    const waiting = await get(CONFIGMAPS, "rc");
    expect(waiting.metadata?.deletionTimestamp).toBeDefined();
    expect(waiting.metadata?.finalizers).toEqual(["foregroundDeletion"]);
    await h!.client.patch(SECRETS, ns, "pod-held", { metadata: { finalizers: null } });
    await gone(SECRETS, "pod-held");
    await gone(CONFIGMAPS, "rc");
  });

  // Ports: "should not delete dependents that have both valid owner and owner that's waiting for dependents to be deleted"
  it("keeps dependents that also have a valid owner when another owner is deleted in the foreground", async () => {
    await start();
    const rc1 = await configMap("rc1");
    const rc2 = await configMap("rc2");
    await secret("only-rc1", { ownerReferences: [ownerRef(rc1, { blockOwnerDeletion: true })] });
    await secret("both", { ownerReferences: [ownerRef(rc1, { blockOwnerDeletion: true }), ownerRef(rc2)] });
    await h!.client.delete(CONFIGMAPS, ns, "rc1", { propagationPolicy: "Foreground" });
    await gone(SECRETS, "only-rc1");
    await gone(CONFIGMAPS, "rc1");
    const both = await get(SECRETS, "both");
    expect(both.metadata?.ownerReferences?.map((r) => r.name)).toEqual(["rc2"]);
  });

  // Ports: "should not be blocked by dependency circle"
  it("is not blocked by a circle of blocking owner references", async () => {
    await start();
    const pod1 = await configMap("pod1");
    const pod2 = await configMap("pod2", { ownerReferences: [ownerRef(pod1, { blockOwnerDeletion: true })] });
    const pod3 = await configMap("pod3", { ownerReferences: [ownerRef(pod2, { blockOwnerDeletion: true })] });
    await h!.client.patch(CONFIGMAPS, ns, "pod1", { metadata: { ownerReferences: [ownerRef(pod3, { blockOwnerDeletion: true })] } });
    await h!.client.delete(CONFIGMAPS, ns, "pod1", { propagationPolicy: "Foreground" });
    await gone(CONFIGMAPS, "pod1", ns, 30_000);
    await gone(CONFIGMAPS, "pod2", ns, 30_000);
    await gone(CONFIGMAPS, "pod3", ns, 30_000);
  }, 40_000);
});

const gadgets: ResourceDefinition = {
  group: "example.com",
  version: "v1",
  kind: "Gadget",
  plural: "gadgets",
  singular: "gadget",
  scope: "Cluster",
  schema: { type: "object", properties: { apiVersion: { type: "string" }, kind: { type: "string" }, metadata: { type: "object" } } },
  printerColumns: [],
};
const GADGETS: ResourceRef = { group: "example.com", version: "v1", resource: "gadgets", namespaced: false };

/** Waits until the collector has listed gadgets (its monitor of the type added at run time has synced). */
function watchingGadgets(): Promise<true> {
  return eventually("the collector to list gadgets", () =>
    h!.logs.some((r) => r.msg === "listed" && r["informer"] === "gadgets.example.com") ? true : undefined,
  );
}

describe("garbage collector", () => {
  it("deletes a dependent whose owner never existed or has another uid (dangling references)", async () => {
    await start();
    await secret("dangling", {
      ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "never", uid: "00000000-0000-0000-0000-000000000001" }],
    });
    await configMap("recreated");
    await secret("mismatched", {
      ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "recreated", uid: "00000000-0000-0000-0000-000000000002" }],
    });
    await gone(SECRETS, "dangling");
    await gone(SECRETS, "mismatched");
    expect((await get(CONFIGMAPS, "recreated")).metadata?.name).toBe("recreated");
  });

  it("a dependent with several owners goes only when none remains", async () => {
    await start();
    const a = await configMap("a");
    const b = await configMap("b");
    await secret("shared", { ownerReferences: [ownerRef(a), ownerRef(b)] });
    await h!.client.delete(CONFIGMAPS, ns, "a");
    await eventually("the reference to a to be removed", async () => {
      const refs = (await get(SECRETS, "shared")).metadata?.ownerReferences ?? [];
      return refs.length === 1 ? refs : undefined;
    });
    expect((await get(SECRETS, "shared")).metadata?.ownerReferences?.[0]?.name).toBe("b");
    await h!.client.delete(CONFIGMAPS, ns, "b");
    await gone(SECRETS, "shared");
  });

  it("collects namespaced dependents of a cluster-scoped owner whose type was added at run time", async () => {
    await start();
    h!.test.plane.server.addResource({ definition: gadgets, store: createResourceStore(gadgets, h!.test.plane.storage) });
    const owner = await h!.client.create(GADGETS, undefined, {
      apiVersion: "example.com/v1",
      kind: "Gadget",
      metadata: { name: "cluster-owner" },
    });
    await secret("in-default", { ownerReferences: [ownerRef(owner)] });
    await secret("in-kube-public", { ownerReferences: [ownerRef(owner)] }, "kube-public");
    // Wait until the collector watches the new type, so the delete is seen live.
    await watchingGadgets();
    await h!.client.delete(GADGETS, undefined, "cluster-owner");
    await gone(SECRETS, "in-default");
    await gone(SECRETS, "in-kube-public", "kube-public");
  });

  it("ignores a namespaced owner referenced from another namespace, with an OwnerRefInvalidNamespace event", async () => {
    await start();
    const owner = await configMap("owner", {}, "kube-public");
    await settle();
    await secret("elsewhere", { ownerReferences: [ownerRef(owner)] });
    await gone(SECRETS, "elsewhere");
    expect((await get(CONFIGMAPS, "owner", "kube-public")).metadata?.uid).toBe(owner.metadata?.uid);
    const events = await eventually("the warning event", async () => {
      const list = await h!.client.list({ group: "", version: "v1", resource: "events", namespaced: true }, ns);
      const found = list.items.filter((e) => e["reason"] === "OwnerRefInvalidNamespace");
      return found.length > 0 ? found : undefined;
    });
    expect(events[0]).toMatchObject({
      type: "Warning",
      involvedObject: { kind: "Secret", name: "elsewhere", namespace: ns },
      message: `ownerRef [v1/ConfigMap, namespace: ${ns}, name: owner, uid: ${owner.metadata?.uid}] does not exist in namespace "${ns}"`,
      source: { component: "garbage-collector-controller" },
    });
  });

  it("leaves a cluster-scoped dependent of a namespaced owner kind alone, with an event", async () => {
    await start();
    h!.test.plane.server.addResource({ definition: gadgets, store: createResourceStore(gadgets, h!.test.plane.storage) });
    const owner = await configMap("ns-owner");
    await watchingGadgets();
    await h!.client.create(GADGETS, undefined, {
      apiVersion: "example.com/v1",
      kind: "Gadget",
      metadata: { name: "bad-child", ownerReferences: [ownerRef(owner)] },
    });
    const events = await eventually("the warning event", async () => {
      const list = await h!.client.list({ group: "", version: "v1", resource: "events", namespaced: true }, "default");
      const found = list.items.filter((e) => e["reason"] === "OwnerRefInvalidNamespace");
      return found.length > 0 ? found : undefined;
    });
    expect(events[0]).toMatchObject({ involvedObject: { kind: "Gadget", name: "bad-child" } });
    await settle();
    expect((await get(GADGETS, "bad-child", undefined)).metadata?.name).toBe("bad-child");
  });
});
