import { describe, expect, it } from "vitest";
import type { Node } from "../resources/nodes.js";
import type { Pod } from "../resources/pods.js";
import { podRequests, resourceFitReasons } from "./fit.js";

const node: Node = { metadata: { name: "n" }, status: { allocatable: { cpu: "1", memory: "1Gi", pods: "110" } } };

describe("pod overhead (upstream's PodRequests adds spec.overhead)", () => {
  it("adds the RuntimeClass overhead to the containers' requests", () => {
    const pod: Pod = {
      spec: {
        containers: [{ name: "c", resources: { requests: { cpu: "900m", memory: "100Mi" } } }],
        overhead: { cpu: "200m", memory: "1Mi" },
      },
    };
    expect(podRequests(pod)).toEqual(
      new Map([
        ["cpu", 1100n],
        ["memory", 101n * 1024n * 1024n * 1000n],
      ]),
    );
  });

  it("makes a pod that fits by its requests alone not fit", () => {
    const requests = { containers: [{ name: "c", resources: { requests: { cpu: "900m" } } }] };
    expect(resourceFitReasons({ spec: requests }, node, new Map(), 0)).toEqual([]);
    expect(resourceFitReasons({ spec: { ...requests, overhead: { cpu: "200m" } } }, node, new Map(), 0)).toEqual(["Insufficient cpu"]);
  });
});
