import { describe, expect, it } from "vitest";
import type { Pod } from "../resources/pods.js";
import type { StatefulSet } from "../resources/statefulsets.js";
import { claimOwnerReferences, claimsFor, identityMatches, newStatefulSetPod, ordinalOf, storageMatches } from "./statefulset-identity.js";
import { planStatefulSet, statefulSetStatus, type OrdinalPod } from "./statefulset-plan.js";

// After pkg/controller/statefulset's stateful_set_control_test.go and stateful_set_utils_test.go.
const set = (spec: StatefulSet["spec"] = {}): StatefulSet => ({
  metadata: { name: "web", namespace: "ns", uid: "set-uid", generation: 1 },
  spec: {
    replicas: 3,
    podManagementPolicy: "OrderedReady",
    updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0 } },
    selector: { matchLabels: { app: "web" } },
    template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "x" }] } },
    ...spec,
  },
});

const pod = (
  ordinal: number,
  state: "ready" | "unready" | "pending" | "failed" | "terminating" = "ready",
  revision = "rev-1",
): OrdinalPod => ({
  ordinal,
  pod: {
    metadata: {
      name: `web-${ordinal}`,
      uid: `uid-${ordinal}`,
      labels: { "controller-revision-hash": revision },
      ...(state === "terminating" ? { deletionTimestamp: "2024-01-01T00:00:00Z" } : {}),
    },
    status: {
      phase: state === "pending" ? "Pending" : state === "failed" ? "Failed" : "Running",
      conditions: [
        {
          type: "Ready",
          status: state === "ready" || state === "terminating" ? "True" : "False",
          lastTransitionTime: "2024-01-01T00:00:00Z",
        },
      ],
    },
  },
});

const names = (pods: Pod[]) => pods.map((p) => p.metadata?.name);

describe("planStatefulSet", () => {
  it("OrderedReady creates one pod at a time, each after its predecessors are Running and Ready", () => {
    expect(planStatefulSet(set(), [], "rev-1", Date.now()).create).toEqual([0]);
    expect(planStatefulSet(set(), [pod(0, "pending")], "rev-1", Date.now()).create).toEqual([]);
    expect(planStatefulSet(set(), [pod(0, "unready")], "rev-1", Date.now()).create).toEqual([]);
    expect(planStatefulSet(set(), [pod(0)], "rev-1", Date.now()).create).toEqual([1]);
  });

  it("Parallel creates every missing pod at once, whatever the others' health", () => {
    expect(planStatefulSet(set({ podManagementPolicy: "Parallel" }), [pod(0, "unready")], "rev-1", Date.now()).create).toEqual([1, 2]);
  });

  it("waits for minReadySeconds before the next pod, and says when to look again", () => {
    const fresh = pod(0);
    fresh.pod.status!.conditions![0]!.lastTransitionTime = new Date().toISOString();
    const plan = planStatefulSet(set({ minReadySeconds: 5 }), [fresh], "rev-1", Date.now());
    expect(plan.create).toEqual([]);
    expect(plan.requeueAfterMs).toBeGreaterThan(3000);
  });

  it("scales down from the highest ordinal, one at a time, halting while another pod is unhealthy", () => {
    const down = set({ replicas: 1 });
    expect(names(planStatefulSet(down, [pod(0), pod(1), pod(2)], "rev-1", Date.now()).delete)).toEqual(["web-2"]);
    expect(names(planStatefulSet(down, [pod(0), pod(1), pod(2, "terminating")], "rev-1", Date.now()).delete)).toEqual([]);
    expect(
      names(planStatefulSet(set({ replicas: 0 }), [pod(0, "unready"), pod(1, "unready"), pod(2, "unready")], "rev-1", Date.now()).delete),
    ).toEqual([]);
    expect(
      names(
        planStatefulSet(
          set({ replicas: 0, podManagementPolicy: "Parallel" }),
          [pod(0, "unready"), pod(1, "unready"), pod(2, "unready")],
          "rev-1",
          Date.now(),
        ).delete,
      ),
    ).toEqual(["web-2", "web-1", "web-0"]);
  });

  it("deletes a failed pod so that the next sync makes it again", () => {
    expect(names(planStatefulSet(set(), [pod(0), pod(1, "failed"), pod(2)], "rev-1", Date.now()).delete)).toEqual(["web-1"]);
  });

  it("rolls pods at or above the partition to the update revision from the highest ordinal, one at a time", () => {
    const all = [pod(0), pod(1), pod(2)];
    expect(names(planStatefulSet(set(), all, "rev-2", Date.now()).delete)).toEqual(["web-2"]);
    expect(names(planStatefulSet(set(), [pod(0), pod(1), pod(2, "unready", "rev-2")], "rev-2", Date.now()).delete)).toEqual([]);
    expect(names(planStatefulSet(set(), [pod(0), pod(1), pod(2, "ready", "rev-2")], "rev-2", Date.now()).delete)).toEqual(["web-1"]);
    const partitioned = set({ updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 2 } } });
    expect(names(planStatefulSet(partitioned, [pod(0), pod(1), pod(2, "ready", "rev-2")], "rev-2", Date.now()).delete)).toEqual([]);
    expect(names(planStatefulSet(set({ updateStrategy: { type: "OnDelete" } }), all, "rev-2", Date.now()).delete)).toEqual([]);
  });

  it("numbers pods from spec.ordinals.start", () => {
    const started = set({ ordinals: { start: 5 }, replicas: 2 });
    expect(planStatefulSet(started, [], "rev-1", Date.now()).create).toEqual([5]);
    expect(names(planStatefulSet(started, [pod(5), pod(6), pod(0)], "rev-1", Date.now()).delete)).toEqual(["web-0"]);
  });
});

describe("statefulSetStatus", () => {
  it("counts replicas and, once every pod is updated and ready, makes the update revision current", () => {
    const status = statefulSetStatus(set(), [pod(0), pod(1), pod(2, "unready", "rev-2")], "rev-1", "rev-2", Date.now());
    expect(status).toMatchObject({
      replicas: 3,
      readyReplicas: 2,
      availableReplicas: 2,
      currentReplicas: 2,
      updatedReplicas: 1,
      currentRevision: "rev-1",
      updateRevision: "rev-2",
    });
    const done = statefulSetStatus(
      set(),
      [pod(0, "ready", "rev-2"), pod(1, "ready", "rev-2"), pod(2, "ready", "rev-2")],
      "rev-1",
      "rev-2",
      Date.now(),
    );
    expect(done).toMatchObject({ currentReplicas: 3, updatedReplicas: 3, currentRevision: "rev-2" });
  });
});

describe("stateful pod identity", () => {
  it("names pods and claims by ordinal, labels them, and sets hostname and subdomain", () => {
    const withClaims = set({
      serviceName: "web",
      volumeClaimTemplates: [
        { metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } },
      ],
    });
    const made = newStatefulSetPod(withClaims, withClaims.spec!.template!, 2, "web-abc");
    expect(made.metadata?.name).toBe("web-2");
    expect(made.metadata?.labels).toEqual({
      app: "web",
      "statefulset.kubernetes.io/pod-name": "web-2",
      "apps.kubernetes.io/pod-index": "2",
      "controller-revision-hash": "web-abc",
    });
    expect([made.spec?.["hostname"], made.spec?.["subdomain"]]).toEqual(["web-2", "web"]);
    expect(made.spec?.["volumes"]).toEqual([{ name: "data", persistentVolumeClaim: { claimName: "data-web-2" } }]);
    expect(claimsFor(withClaims, 2).map((c) => [c.metadata?.name, c.metadata?.labels])).toEqual([["data-web-2", { app: "web" }]]);
    expect(ordinalOf(withClaims, made)).toBe(2);
    expect(ordinalOf(withClaims, { metadata: { name: "web-02" } })).toBeUndefined();
    expect(ordinalOf(withClaims, { metadata: { name: "webby-1" } })).toBeUndefined();
  });

  it("owns claims by the set when whenDeleted is Delete, and by a scaled-down pod when whenScaled is Delete", () => {
    const claim = { metadata: { name: "data-web-1", ownerReferences: [{ apiVersion: "v1", kind: "Other", name: "o", uid: "other" }] } };
    const p = pod(1).pod;
    const owners = (spec: StatefulSet["spec"]) => claimOwnerReferences(claim, set(spec), p, 1).map((r) => r.uid);
    expect(owners({ persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: "Retain" } })).toEqual(["other"]);
    expect(owners({ persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete", whenScaled: "Retain" } })).toEqual(["other", "set-uid"]);
    expect(owners({ replicas: 1, persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: "Delete" } })).toEqual([
      "other",
      "uid-1",
    ]);
    expect(owners({ replicas: 3, persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: "Delete" } })).toEqual([
      "other",
    ]);
    expect(owners({ replicas: 1, persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete", whenScaled: "Delete" } })).toEqual([
      "other",
      "uid-1",
    ]);
  });
});

describe("identityMatches, storageMatches and the repairs they ask for (stateful_set_utils_test.go)", () => {
  const withClaims = set({
    serviceName: "web",
    volumeClaimTemplates: [
      { metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } },
    ],
  });
  const member = (change: (pod: Pod) => void = () => {}, phase = "Running"): OrdinalPod => {
    const made = newStatefulSetPod(withClaims, withClaims.spec!.template!, 0, "rev-1");
    made.status = {
      phase,
      conditions: [{ type: "Ready", status: phase === "Running" ? "True" : "False", lastTransitionTime: "2024-01-01T00:00:00Z" }],
    };
    change(made);
    return { ordinal: 0, pod: made };
  };

  it("a pod as made matches; a changed pod-name label, another namespace or a lost claim volume does not", () => {
    expect(identityMatches(withClaims, member().pod)).toBe(true);
    expect(storageMatches(withClaims, member().pod)).toBe(true);
    expect(identityMatches(withClaims, member((p) => (p.metadata!.labels!["statefulset.kubernetes.io/pod-name"] = "web-9")).pod)).toBe(
      false,
    );
    expect(identityMatches(withClaims, member((p) => (p.metadata!.namespace = "elsewhere")).pod)).toBe(false);
    expect(storageMatches(withClaims, member((p) => (p.spec!["volumes"] = [{ name: "data", emptyDir: {} }])).pod)).toBe(false);
    expect(
      storageMatches(
        withClaims,
        member((p) => (p.spec!["volumes"] = [{ name: "data", persistentVolumeClaim: { claimName: "data-web-1" } }])).pod,
      ),
    ).toBe(false);
  });

  it("repairs a healthy pod whose identity or storage is off, makes a Pending pod's missing claims, and waits on an unready one (OrderedReady)", () => {
    const relabelled = member((p) => delete p.metadata!.labels!["statefulset.kubernetes.io/pod-name"]);
    const plan = planStatefulSet({ ...withClaims, spec: { ...withClaims.spec, replicas: 1 } }, [relabelled], "rev-1", Date.now());
    expect(plan.repair).toEqual([relabelled]);
    const pending = member((p) => delete p.metadata!.labels!["statefulset.kubernetes.io/pod-name"], "Pending");
    const waiting = planStatefulSet({ ...withClaims, spec: { ...withClaims.spec, replicas: 1 } }, [pending], "rev-1", Date.now());
    expect(waiting.claimsFor).toEqual([pending]);
    expect(waiting.repair).toEqual([]);
    const parallel = planStatefulSet(
      { ...withClaims, spec: { ...withClaims.spec, replicas: 1, podManagementPolicy: "Parallel" } },
      [pending],
      "rev-1",
      Date.now(),
    );
    expect(parallel.repair).toEqual([pending]);
    expect(planStatefulSet({ ...withClaims, spec: { ...withClaims.spec, replicas: 1 } }, [member()], "rev-1", Date.now()).repair).toEqual(
      [],
    );
  });
});
