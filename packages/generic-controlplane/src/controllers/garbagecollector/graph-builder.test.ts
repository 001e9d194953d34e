import { describe, expect, it } from "vitest";
import type { KubeObject, OwnerReference } from "../../api/types.js";
import type { EventRecorder, InvolvedObject } from "../runtime.js";
import { WorkQueue } from "../workqueue.js";
import { GraphBuilder } from "./graph-builder.js";

// Graph-maintenance cases after upstream garbagecollector_test.go (TestProcessEvent, TestConflictingData).

interface Recorded {
  involved: InvolvedObject;
  type: string;
  reason: string;
  message: string;
}

function setup() {
  const attemptToDelete = new WorkQueue({ name: "delete" });
  const attemptToOrphan = new WorkQueue({ name: "orphan" });
  const events: Recorded[] = [];
  const recorder = {
    event: (involved: InvolvedObject, type: string, reason: string, message: string) => {
      events.push({ involved, type, reason, message });
      return Promise.resolve();
    },
  } as unknown as EventRecorder;
  const graph = new GraphBuilder(attemptToDelete, attemptToOrphan, recorder, () => undefined);
  /** Keys waiting in a queue, drained. */
  const drain = async (queue: WorkQueue): Promise<string[]> => {
    const keys: string[] = [];
    while (queue.length > 0) {
      const key = await queue.get();
      if (key === undefined) break;
      keys.push(key);
      queue.done(key);
    }
    return keys;
  };
  return { graph, events, deletes: () => drain(attemptToDelete), orphans: () => drain(attemptToOrphan) };
}

function cm(
  name: string,
  uid: string,
  namespace = "ns",
  extra: { ownerReferences?: OwnerReference[]; finalizers?: string[]; deletionTimestamp?: string } = {},
): KubeObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace, uid, ...extra } };
}

function ref(name: string, uid: string, blockOwnerDeletion?: boolean): OwnerReference {
  return { apiVersion: "v1", kind: "ConfigMap", name, uid, ...(blockOwnerDeletion !== undefined ? { blockOwnerDeletion } : {}) };
}

describe("GraphBuilder", () => {
  it("links dependents to observed owners, follows reference changes, and queues dependents when the owner goes", async () => {
    const { graph, deletes } = setup();
    graph.process({ type: "add", object: cm("owner", "o1") });
    graph.process({ type: "add", object: cm("dep", "d1", "ns", { ownerReferences: [ref("owner", "o1")] }) });
    expect([...graph.uidToNode.get("o1")!.dependents].map((d) => d.identity.name)).toEqual(["dep"]);
    expect(await deletes()).toEqual([]);

    graph.process({ type: "update", oldObject: cm("dep", "d1", "ns", { ownerReferences: [ref("owner", "o1")] }), object: cm("dep", "d1") });
    expect(graph.uidToNode.get("o1")!.dependents.size).toBe(0);

    graph.process({ type: "update", object: cm("dep", "d1", "ns", { ownerReferences: [ref("owner", "o1")] }) });
    graph.process({ type: "delete", object: cm("owner", "o1") });
    expect(graph.uidToNode.has("o1")).toBe(false);
    expect(await deletes()).toEqual(["d1"]);
  });

  it("creates a virtual owner for an unseen owner and queues it for verification; the owner showing up makes it observed", async () => {
    const { graph, deletes } = setup();
    graph.process({ type: "add", object: cm("dep", "d1", "ns", { ownerReferences: [ref("owner", "o1")] }) });
    const virtual = graph.uidToNode.get("o1")!;
    expect(virtual.virtual).toBe(true);
    expect(virtual.observed).toBe(false);
    expect(virtual.identity).toEqual({ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: "o1", namespace: "ns" });
    expect(await deletes()).toEqual(["o1"]);
    graph.process({ type: "add", object: cm("owner", "o1") });
    const observed = graph.uidToNode.get("o1")!;
    expect(observed.virtual).toBe(false);
    expect(observed.observed).toBe(true);
    expect([...observed.dependents].map((d) => d.identity.name)).toEqual(["dep"]);
    expect(await deletes()).toEqual([]);
  });

  it("a dependent naming an observed owner of another namespace gets an OwnerRefInvalidNamespace event and is queued", async () => {
    const { graph, events, deletes } = setup();
    graph.process({ type: "add", object: cm("owner", "o1", "a") });
    graph.process({ type: "add", object: cm("dep", "d1", "b", { ownerReferences: [ref("owner", "o1")] }) });
    expect(await deletes()).toEqual(["d1"]);
    expect(events).toEqual([
      {
        involved: { apiVersion: "v1", kind: "ConfigMap", name: "dep", uid: "d1", namespace: "b" },
        type: "Warning",
        reason: "OwnerRefInvalidNamespace",
        message: 'ownerRef [v1/ConfigMap, namespace: b, name: owner, uid: o1] does not exist in namespace "b"',
      },
    ]);
  });

  it("the owner observed after its dependent in another namespace: the dependent is reported and queued", async () => {
    const { graph, events, deletes } = setup();
    graph.process({ type: "add", object: cm("dep", "d1", "b", { ownerReferences: [ref("owner", "o1")] }) });
    await deletes();
    graph.process({ type: "add", object: cm("owner", "o1", "a") });
    expect(await deletes()).toEqual(["d1"]);
    expect(events.map((e) => e.reason)).toEqual(["OwnerRefInvalidNamespace"]);
    expect(graph.uidToNode.get("o1")!.identity.namespace).toBe("a");
  });

  it("foregroundDeletion marks the owner deletingDependents and queues it and its dependents; orphan queues it to orphan", async () => {
    const { graph, deletes, orphans } = setup();
    graph.process({ type: "add", object: cm("owner", "o1") });
    graph.process({ type: "add", object: cm("dep", "d1", "ns", { ownerReferences: [ref("owner", "o1", true)] }) });
    graph.process({
      type: "update",
      oldObject: cm("owner", "o1"),
      object: cm("owner", "o1", "ns", { deletionTimestamp: "2026-01-01T00:00:00Z", finalizers: ["foregroundDeletion"] }),
    });
    expect(graph.uidToNode.get("o1")!.deletingDependents).toBe(true);
    expect((await deletes()).sort()).toEqual(["d1", "o1"]);

    graph.process({ type: "add", object: cm("other", "o2") });
    graph.process({
      type: "update",
      oldObject: cm("other", "o2"),
      object: cm("other", "o2", "ns", { deletionTimestamp: "2026-01-01T00:00:00Z", finalizers: ["orphan"] }),
    });
    expect(await orphans()).toEqual(["o2"]);
  });

  it("a dependent dropping its blocking reference to an owner waiting on it queues the owner", async () => {
    const { graph, deletes } = setup();
    const deleting = cm("owner", "o1", "ns", { deletionTimestamp: "2026-01-01T00:00:00Z", finalizers: ["foregroundDeletion"] });
    graph.process({ type: "add", object: deleting });
    graph.process({ type: "add", object: cm("dep", "d1", "ns", { ownerReferences: [ref("owner", "o1", true)] }) });
    await deletes();
    graph.process({ type: "update", object: cm("dep", "d1", "ns", { ownerReferences: [ref("owner", "o1", false)] }) });
    expect(await deletes()).toEqual(["o1"]);
  });

  it("a virtual delete of a virtual node whose dependents disagree on its coordinates keeps it under the other coordinates", async () => {
    const { graph, deletes } = setup();
    graph.process({ type: "add", object: cm("dep-a", "d1", "a", { ownerReferences: [ref("owner", "o1")] }) });
    graph.process({ type: "add", object: cm("dep-b", "d2", "b", { ownerReferences: [ref("owner", "o1")] }) });
    await deletes();
    // The collector verified the owner is absent in namespace a.
    graph.process({ type: "virtualDelete", identity: { apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: "o1", namespace: "a" } });
    const remaining = graph.uidToNode.get("o1")!;
    expect(remaining.identity.namespace).toBe("b");
    expect([...remaining.dependents].map((d) => d.identity.name)).toEqual(["dep-b"]);
    expect(await deletes()).toEqual(["d1"]);
    expect(graph.absentOwners.has({ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: "o1", namespace: "a" })).toBe(true);
  });
});
