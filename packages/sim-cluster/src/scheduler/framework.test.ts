import { describe, expect, it } from "vitest";
import type { Node } from "../resources/nodes.js";
import type { Pod } from "../resources/pods.js";
import { fitErrorMessage } from "./fit.js";
import type { Taint } from "./taint-toleration.js";
import { addToUsage, emptyUsage, filterReasons, normalizeScores, scoreNodes } from "./framework.js";

const readyNode = (name: string, extra: { labels?: Record<string, string>; taints?: Taint[]; cpu?: string } = {}): Node => ({
  metadata: { name, labels: extra.labels ?? {} },
  spec: { ...(extra.taints ? { taints: extra.taints } : {}) },
  status: { allocatable: { cpu: extra.cpu ?? "4", memory: "16Gi", pods: "110" }, conditions: [{ type: "Ready", status: "True" }] },
});
const pod = (spec: Record<string, unknown> = {}): Pod => ({
  metadata: { name: "p" },
  spec: { containers: [{ name: "c", image: "x" }], ...spec },
});

describe("filter plugins in upstream's order", () => {
  it("judges a node by the first plugin that rejects it", () => {
    const tainted = readyNode("n", { taints: [{ key: "k", value: "v", effect: "NoSchedule" }], cpu: "1" });
    const big = pod({ nodeSelector: { disk: "ssd" }, containers: [{ name: "c", image: "x", resources: { requests: { cpu: "2" } } }] });
    expect(filterReasons(big, tainted, emptyUsage())).toEqual(["node(s) had untolerated taint {k: v}"]);
    const tolerating = { ...big, spec: { ...big.spec, tolerations: [{ key: "k", operator: "Exists" }] } };
    expect(filterReasons(tolerating, tainted, emptyUsage())).toEqual(["node(s) didn't match Pod's node affinity/selector"]);
    expect(filterReasons(tolerating, { ...tainted, metadata: { name: "n", labels: { disk: "ssd" } } }, emptyUsage())).toEqual([
      "Insufficient cpu",
    ]);
    expect(
      filterReasons(
        pod(),
        { ...readyNode("n"), spec: { unschedulable: true, taints: [{ key: "k", effect: "NoSchedule" }] } },
        emptyUsage(),
      ),
    ).toEqual(["node(s) were unschedulable"]);
  });

  it("keeps a second pod wanting the same host port off the node", () => {
    const wantsPort = pod({ containers: [{ name: "c", image: "x", ports: [{ containerPort: 80, hostPort: 80 }] }] });
    const usage = emptyUsage();
    expect(filterReasons(wantsPort, readyNode("n"), usage)).toEqual([]);
    addToUsage(usage, wantsPort);
    expect(filterReasons(wantsPort, readyNode("n"), usage)).toEqual(["node(s) didn't have free ports for the requested pod ports"]);
  });

  it("counts each reason over the nodes in the FitError message", () => {
    expect(
      fitErrorMessage(3, [
        ["node(s) had untolerated taint {k: v}"],
        ["node(s) didn't match Pod's node affinity/selector"],
        ["node(s) didn't match Pod's node affinity/selector"],
      ]),
    ).toBe("0/3 nodes are available: 1 node(s) had untolerated taint {k: v}, 2 node(s) didn't match Pod's node affinity/selector.");
  });
});

describe("score plugins", () => {
  // After DefaultNormalizeScore's tests in pkg/scheduler/framework/plugins/helper.
  it("normalises to 0..100, reversed when fewer is better", () => {
    expect(normalizeScores([1, 2, 3, 4], false)).toEqual([25, 50, 75, 100]);
    expect(normalizeScores([1, 2, 3, 4], true)).toEqual([75, 50, 25, 0]);
    expect(normalizeScores([0, 0], false)).toEqual([0, 0]);
    expect(normalizeScores([0, 0], true)).toEqual([100, 100]);
  });

  it("prefers the node matching a heavier preferred term over an emptier one", () => {
    const preferring = pod({
      affinity: {
        nodeAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 50, preference: { matchExpressions: [{ key: "zone", operator: "In", values: ["b"] }] } },
          ],
        },
      },
    });
    const busy = emptyUsage();
    for (let i = 0; i < 5; i++) addToUsage(busy, pod());
    const [a, b] = scoreNodes(preferring, [
      { node: readyNode("a", { labels: { zone: "a" } }), usage: emptyUsage() },
      { node: readyNode("b", { labels: { zone: "b" } }), usage: busy },
    ]);
    expect(b!).toBeGreaterThan(a!);
  });

  it("avoids a node with an intolerable PreferNoSchedule taint", () => {
    const [plain, soft] = scoreNodes(pod(), [
      { node: readyNode("plain"), usage: emptyUsage() },
      { node: readyNode("soft", { taints: [{ key: "spot", effect: "PreferNoSchedule" }] }), usage: emptyUsage() },
    ]);
    expect(plain!).toBeGreaterThan(soft!);
  });

  it("LeastAllocated counts pods without requests as 100m and 200Mi, so they spread", () => {
    const one = emptyUsage();
    addToUsage(one, pod());
    const [empty, used] = scoreNodes(pod(), [
      { node: readyNode("a"), usage: emptyUsage() },
      { node: readyNode("b"), usage: one },
    ]);
    expect(empty!).toBeGreaterThan(used!);
  });
});
