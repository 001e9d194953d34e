import { readFileSync } from "node:fs";
import type { Node, Pod } from "@kubekit/client";
import { describe, expect, it } from "vitest";
import { planNodeResize } from "./node-plan.js";
import { nodeResources, nodesOf, parseObjectsYaml, podsOf } from "./objects.js";
import { parseResourceList, resourceListStrings } from "./resource-list.js";

const fixture = readFileSync(new URL("../test/fixtures/pods.yaml", import.meta.url), "utf8");
const node: Node = {
  apiVersion: "v1",
  kind: "Node",
  metadata: { name: "node-a" },
  status: { capacity: { cpu: "8", memory: "33Gi", pods: "110" }, allocatable: { cpu: "8", memory: "32Gi", pods: "110" } },
};

describe("reading objects", () => {
  it("flattens lists, keeps document order and skips empty documents", () => {
    const objects = parseObjectsYaml(`${fixture}\n---\n---\nkind: Node\nmetadata: {name: n}\n`);
    expect(podsOf(objects).map((pod) => pod.metadata?.name)).toEqual(["web-0", "worker-0", "migrate-1", "node-balloon-x7k2p"]);
    expect(nodesOf(objects).map((n) => n.metadata?.name)).toEqual(["n"]);
  });

  it("gives the items of a typed list (PodList) their kind", () => {
    const objects = parseObjectsYaml('{"kind":"PodList","apiVersion":"v1","items":[{"metadata":{"name":"a"}}]}');
    expect(objects).toEqual([{ kind: "Pod", metadata: { name: "a" } }]);
  });

  it("says which document is wrong", () => {
    expect(() => parseObjectsYaml("kind: Pod\n---\n- 1\n", "pods.yaml")).toThrow(/pods.yaml: document 2: expected a Kubernetes object/);
    expect(() => parseObjectsYaml("kind: [", "pods.yaml")).toThrow(/pods.yaml: document 1/);
  });

  it("reads a node's capacity and allocatable", () => {
    const sizes = nodeResources(node);
    expect(resourceListStrings(sizes.allocatable)).toEqual({ cpu: "8", memory: "32Gi", pods: "110" });
    expect(() => nodeResources({ metadata: { name: "bare" } })).toThrow(/node bare has no status.allocatable/);
  });
});

describe("planNodeResize", () => {
  const pods = podsOf(parseObjectsYaml(fixture));

  it("finds the balloon, counts the node's other active pods and plans", () => {
    const plan = planNodeResize({ node, pods, target: parseResourceList("cpu=4,memory=16Gi") });
    expect(plan).toMatchObject({ decision: "resize", node: "node-a", balloonPod: "node-balloon-x7k2p" });
    expect(resourceListStrings(plan.balloon)).toEqual({ cpu: "4", memory: "16Gi" });
    // The finished pod (4 cpu) is not counted, so 1500m of other requests leave room for a 6500m balloon.
    const tight = planNodeResize({ node, pods, target: parseResourceList("cpu=1500m") });
    expect(tight.decision).toBe("resize");
    expect(planNodeResize({ node, pods, target: parseResourceList("cpu=1499m") }).decision).toBe("refused");
  });

  it("resizes only the DaemonSet's balloon: a labelled workload is an ordinary pod, whatever its container is called", () => {
    const balloon = podOn("node-balloon-n8", { cpu: "2" }, { balloon: true, allocated: { cpu: "2" }, created: "2026-01-01T00:00:00Z" });
    const impostor = podOn("impostor", { cpu: "1" }, { labelled: true, allocated: { cpu: "1" }, created: "2026-01-02T00:00:00Z" });
    const plan = planNodeResize({ node: eightCpu, pods: [balloon, impostor], target: parseResourceList("cpu=4") });
    expect(plan.balloonRef).toMatchObject({ namespace: "kube-system", name: "node-balloon-n8" });
    // 8 − 4 = 4 for the balloon, beside the impostor's 1.
    expect(resourceListStrings(plan.balloon)).toEqual({ cpu: "4" });
    expect(plan.otherBalloons).toEqual([]);
    // Without the DaemonSet's balloon there is nothing to resize, not the impostor.
    expect(() => planNodeResize({ node: eightCpu, pods: [impostor], target: parseResourceList("cpu=4") })).toThrow(
      /node n8 has no running balloon pod/,
    );
    // Another installation's balloons are its own.
    expect(() =>
      planNodeResize({ node: eightCpu, pods: [balloon], target: parseResourceList("cpu=4"), owner: { name: "other-balloon" } }),
    ).toThrow(/no running balloon pod/);
  });

  it("ignores pods bound to other nodes", () => {
    const elsewhere = pods.map((pod) => ({ ...pod, spec: { ...pod.spec, containers: pod.spec?.containers ?? [], nodeName: "node-b" } }));
    expect(() => planNodeResize({ node, pods: elsewhere, target: parseResourceList("cpu=4") })).toThrow(
      /node node-a has no running balloon pod/,
    );
  });
});

const eightCpu: Node = {
  metadata: { name: "n8" },
  status: { capacity: { cpu: "8", memory: "32Gi" }, allocatable: { cpu: "8", memory: "32Gi" } },
};

type Condition = NonNullable<NonNullable<Pod["status"]>["conditions"]>[number];

/** A pod on n8 with one container; `allocated` adds the kubelet's status (allocatedResources and actual requests). */
function podOn(
  name: string,
  desired: Record<string, string>,
  options: {
    allocated?: Record<string, string>;
    conditions?: Condition[];
    balloon?: boolean;
    labelled?: boolean;
    overhead?: Record<string, string>;
    created?: string;
    deleting?: boolean;
  } = {},
): Pod {
  const container = options.balloon ? "balloon" : "main";
  return {
    metadata: {
      name,
      namespace: options.balloon ? "kube-system" : "default",
      ...(options.balloon || options.labelled ? { labels: { "balloon.kubekit.dev/balloon": "true" } } : {}),
      ...(options.balloon
        ? { ownerReferences: [{ apiVersion: "apps/v1", kind: "DaemonSet", name: "node-balloon", uid: "ds-uid", controller: true }] }
        : {}),
      ...(options.created ? { creationTimestamp: options.created } : {}),
      ...(options.deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}),
    },
    spec: {
      nodeName: "n8",
      ...(options.balloon ? { priorityClassName: "node-balloon" } : {}),
      containers: [{ name: options.labelled ? "balloon" : container, image: "x", resources: { requests: desired } }],
      ...(options.overhead ? { overhead: options.overhead } : {}),
    },
    status: {
      phase: "Running",
      ...(options.conditions ? { conditions: options.conditions } : {}),
      ...(options.allocated
        ? {
            containerStatuses: [
              {
                name: container,
                image: "x",
                imageID: "",
                ready: true,
                restartCount: 0,
                allocatedResources: options.allocated,
                resources: { requests: options.allocated },
              },
            ],
          }
        : {}),
    },
  };
}

const deferred: Condition = {
  type: "PodResizePending",
  status: "True",
  reason: "Deferred",
  message: "Node didn't have enough resource: cpu",
};
const infeasible: Condition = {
  type: "PodResizePending",
  status: "True",
  reason: "Infeasible",
  message: "Node didn't have enough capacity",
};

describe("planNodeResize reads live state like the kubelet", () => {
  const workload = podOn("work", { cpu: "5" }, { allocated: { cpu: "5" } });
  const inFlight = podOn("balloon", { cpu: "6" }, { balloon: true, allocated: { cpu: "2" }, conditions: [deferred] });

  it("judges a new size against the balloon's allocation, not a Deferred spec: 2 → 4 with 3 free is refused", () => {
    const plan = planNodeResize({ node: eightCpu, pods: [workload, inFlight], target: parseResourceList("cpu=4") });
    expect(plan.decision).toBe("refused");
    expect(plan.inFlight).toBe(true);
    expect(plan.resizeState).toMatchObject({ pending: "Deferred", inProgress: false });
    const cpu = plan.resources[0];
    expect([cpu?.current.toString(), cpu?.desired.toString(), cpu?.planned.toString(), cpu?.direction]).toEqual([
      "2",
      "6",
      "4",
      "shrink-node",
    ]);
    if (plan.decision !== "refused") return;
    expect(plan.refusals.map((r) => [r.resource, r.requested.toString(), r.room.toString(), r.otherPods.toString()])).toEqual([
      ["cpu", "4", "3", "5"],
    ]);
    // Refused leaves the spec as it is.
    expect(resourceListStrings(plan.balloon)).toEqual({ cpu: "6" });
  });

  it("submits the size anyway when asked to defer, and shrinks only to the room with partial", () => {
    const input = { node: eightCpu, pods: [workload, inFlight], target: parseResourceList("cpu=4") };
    const defer = planNodeResize({ ...input, onShortfall: "defer" });
    expect(defer.decision).toBe("defer");
    expect(resourceListStrings(defer.balloon)).toEqual({ cpu: "4" });
    expect(defer.message).toContain("waits (Deferred)");
    const partial = planNodeResize({ ...input, onShortfall: "partial" });
    expect(partial.decision).toBe("resize");
    expect(resourceListStrings(partial.balloon)).toEqual({ cpu: "3" });
    expect(partial.resources[0]?.limitedBy).toBe("room");
  });

  it("keeps a Deferred resize already at the planned size as the defer decision, with nothing to change", () => {
    const waiting = podOn("balloon", { cpu: "4" }, { balloon: true, allocated: { cpu: "2" }, conditions: [deferred] });
    const plan = planNodeResize({ node: eightCpu, pods: [workload, waiting], target: parseResourceList("cpu=4"), onShortfall: "defer" });
    expect(plan.decision).toBe("defer");
    expect(plan.resources.map((r) => [r.desired.toString(), r.planned.toString()])).toEqual([["4", "4"]]);
    expect(planNodeResize({ node: eightCpu, pods: [workload, waiting], target: parseResourceList("cpu=4") }).decision).toBe("refused");
  });

  it("cancels an in-flight resize that the target no longer needs", () => {
    const plan = planNodeResize({ node: eightCpu, pods: [workload, inFlight], target: parseResourceList("cpu=6") });
    // Target 6 needs a balloon of 2, which is what is allocated: the spec goes back to 2.
    expect(plan.decision).toBe("resize");
    expect(resourceListStrings(plan.balloon)).toEqual({ cpu: "2" });
    expect(plan.resources[0]?.direction).toBe("unchanged");
  });

  it("counts a workload's resize in flight at max(desired, allocated), and an Infeasible one at its allocation", () => {
    const balloon = podOn("balloon", { cpu: "1" }, { balloon: true, allocated: { cpu: "1" } });
    const growing = podOn("grow", { cpu: "5" }, { allocated: { cpu: "3" }, conditions: [deferred] });
    // 8 − 5 (desired counts while Deferred) = 3 room: a 3-cpu balloon fits, 4 does not.
    expect(planNodeResize({ node: eightCpu, pods: [balloon, growing], target: parseResourceList("cpu=5") }).decision).toBe("resize");
    expect(planNodeResize({ node: eightCpu, pods: [balloon, growing], target: parseResourceList("cpu=4") }).decision).toBe("refused");
    const stuck = podOn("stuck", { cpu: "7" }, { allocated: { cpu: "3" }, conditions: [infeasible] });
    // Infeasible never applies: it holds 3, so a 5-cpu balloon fits.
    expect(planNodeResize({ node: eightCpu, pods: [balloon, stuck], target: parseResourceList("cpu=3") }).decision).toBe("resize");
    expect(planNodeResize({ node: eightCpu, pods: [balloon, stuck], target: parseResourceList("cpu=2") }).decision).toBe("refused");
  });

  it("counts RuntimeClass overhead, the balloon's own included", () => {
    const balloon = podOn("balloon", { cpu: "1" }, { balloon: true, allocated: { cpu: "1" }, overhead: { cpu: "250m" } });
    const kata = podOn("kata", { cpu: "2" }, { allocated: { cpu: "2" }, overhead: { cpu: "500m" } });
    const plan = planNodeResize({ node: eightCpu, pods: [balloon, kata], target: parseResourceList("cpu=4") });
    // The balloon pod holds container + 250m, so the container gets 8 − 250m − 4 = 3750m.
    expect(resourceListStrings(plan.balloon)).toEqual({ cpu: "3750m" });
    if (plan.decision === "refused" || plan.decision === "defer") throw new Error(plan.message);
    expect(plan.effective.cpu?.toString()).toBe("4");
    // Room: 8 − (2 + 500m) − 250m = 5250m for the container, i.e. a target of at least 7750m − 5250m = 2500m.
    expect(planNodeResize({ node: eightCpu, pods: [balloon, kata], target: parseResourceList("cpu=2500m") }).decision).toBe("resize");
    const refused = planNodeResize({ node: eightCpu, pods: [balloon, kata], target: parseResourceList("cpu=2499m") });
    expect(refused.decision).toBe("refused");
    if (refused.decision === "refused") expect(refused.refusals[0]?.room.toString()).toBe("5250m");
  });

  it("resizes the replacement during an OnDelete rollout and counts the terminating balloon as still held", () => {
    const old = podOn(
      "balloon-old",
      { cpu: "3" },
      { balloon: true, allocated: { cpu: "3" }, deleting: true, created: "2026-01-01T00:00:00Z" },
    );
    const fresh = podOn("balloon-new", { cpu: "1m" }, { balloon: true, allocated: { cpu: "1m" }, created: "2026-01-02T00:00:00Z" });
    const plan = planNodeResize({ node: eightCpu, pods: [old, fresh], target: parseResourceList("cpu=5") });
    expect(plan).toMatchObject({ decision: "resize", balloonPod: "balloon-new", otherBalloons: ["balloon-old"] });
    // Until the old one is gone it holds 3: a 3-cpu balloon fits beside it (3 + 3 ≤ 8), a 6-cpu one does not.
    expect(planNodeResize({ node: eightCpu, pods: [old, fresh], target: parseResourceList("cpu=2") }).decision).toBe("refused");
    // Two live balloons (a surge): the newest is resized, the other counted.
    const surplus = podOn("balloon-old", { cpu: "3" }, { balloon: true, allocated: { cpu: "3" }, created: "2026-01-01T00:00:00Z" });
    expect(planNodeResize({ node: eightCpu, pods: [fresh, surplus], target: parseResourceList("cpu=5") }).balloonPod).toBe("balloon-new");
    expect(() => planNodeResize({ node: eightCpu, pods: [old], target: parseResourceList("cpu=5") })).toThrow(/only a terminating balloon/);
  });

  it("refuses to plan for a BestEffort balloon, which no resize can change", () => {
    const empty = podOn("balloon", {}, { balloon: true });
    expect(() => planNodeResize({ node: eightCpu, pods: [empty], target: parseResourceList("cpu=4") })).toThrow(/BestEffort/);
    const zero = podOn("balloon", { cpu: "0", memory: "0" }, { balloon: true });
    expect(() => planNodeResize({ node: eightCpu, pods: [zero], target: parseResourceList("cpu=4") })).toThrow(/BestEffort/);
  });

  it("reports that a memory resize may be Infeasible on a node with swap, unless the balloon's memory limit equals its request", () => {
    const swapNode: Node = {
      ...eightCpu,
      status: { ...eightCpu.status, nodeInfo: { swap: { capacity: 4294967296 } } },
    };
    const balloon = podOn("balloon", { cpu: "1", memory: "1Gi" }, { balloon: true, allocated: { cpu: "1", memory: "1Gi" } });
    const plan = planNodeResize({ node: swapNode, pods: [balloon], target: parseResourceList("memory=16Gi") });
    expect(plan.swap?.swapBytes).toBe(4294967296);
    expect(plan.swap?.message).toMatch(/LimitedSwap.*Infeasible.*memory limit equal to its request/);
    expect(planNodeResize({ node: swapNode, pods: [balloon], target: parseResourceList("cpu=4") }).swap).toBeUndefined();
    expect(planNodeResize({ node: eightCpu, pods: [balloon], target: parseResourceList("memory=16Gi") }).swap).toBeUndefined();
    const limited = podOn("balloon", { cpu: "1", memory: "1Gi" }, { balloon: true, allocated: { cpu: "1", memory: "1Gi" } });
    const container = limited.spec?.containers[0];
    if (container) container.resources = { requests: { cpu: "1", memory: "1Gi" }, limits: { memory: "1Gi" } };
    expect(planNodeResize({ node: swapNode, pods: [limited], target: parseResourceList("memory=16Gi") }).swap).toBeUndefined();
  });
});
