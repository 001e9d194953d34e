import { readFileSync } from "node:fs";
import type { V1Node } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { planNodeResize } from "./node-plan.js";
import { nodeResources, nodesOf, parseObjectsYaml, podsOf } from "./objects.js";
import { parseResourceList, resourceListStrings } from "./resource-list.js";

const fixture = readFileSync(new URL("../test/fixtures/pods.yaml", import.meta.url), "utf8");
const node: V1Node = {
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

  it("ignores pods bound to other nodes and insists on exactly one balloon", () => {
    const elsewhere = pods.map((pod) => ({ ...pod, spec: { ...pod.spec, containers: pod.spec?.containers ?? [], nodeName: "node-b" } }));
    expect(() => planNodeResize({ node, pods: elsewhere, target: parseResourceList("cpu=4") })).toThrow(/node node-a has no running balloon pod/);
    const twice = [...pods, ...pods.filter((pod) => pod.metadata?.name === "node-balloon-x7k2p")];
    expect(() => planNodeResize({ node, pods: twice, target: parseResourceList("cpu=4") })).toThrow(/2 balloon pods/);
  });
});
