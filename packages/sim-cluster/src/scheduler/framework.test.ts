import { describe, expect, it } from "vitest";
import type { Node } from "../resources/nodes.js";
import type { Pod } from "../resources/pods.js";
import { fitErrorMessage } from "./fit.js";
import type { Taint } from "./taint-toleration.js";
import { addToUsage, emptyUsage, filterReasons, normalizeScores, removeFromUsage, scoreNodes } from "./framework.js";

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

  it("judges each pod by its own fields and the node as it stands, attempt after attempt on the same node", () => {
    const withCpu = (cpu: string, spec: Record<string, unknown> = {}) =>
      pod({ containers: [{ name: "c", image: "x", resources: { requests: { cpu } } }], ...spec });
    const node = readyNode("n");
    const usage = emptyUsage();
    const first = withCpu("3");
    expect(filterReasons(first, node, usage)).toEqual([]);
    expect(filterReasons(withCpu("3"), node, usage)).toEqual([]);
    expect(filterReasons(withCpu("5"), node, usage)).toEqual(["Insufficient cpu"]);
    expect(filterReasons(withCpu("3", { nodeSelector: { disk: "ssd" } }), node, usage)).toEqual([
      "node(s) didn't match Pod's node affinity/selector",
    ]);
    addToUsage(usage, first);
    expect(filterReasons(withCpu("3"), node, usage)).toEqual(["Insufficient cpu"]);
    expect(filterReasons(withCpu("1"), node, usage)).toEqual([]);
    removeFromUsage(usage, first);
    expect(filterReasons(withCpu("3"), node, usage)).toEqual([]);
    const tainted = readyNode("n", { taints: [{ key: "k", value: "v", effect: "NoSchedule" }] });
    expect(filterReasons(withCpu("3"), tainted, usage)).toEqual(["node(s) had untolerated taint {k: v}"]);
    expect(filterReasons(withCpu("3", { tolerations: [{ key: "k", operator: "Exists" }] }), tainted, usage)).toEqual([]);
    expect(filterReasons(withCpu("3"), node, usage)).toEqual([]);
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

  it("works a node's resource scores out again when its pods, its Node or the pod's requests change", () => {
    const requesting = (requests: Record<string, string>) => pod({ containers: [{ name: "c", image: "x", resources: { requests } }] });
    const light = pod();
    const heavy = requesting({ cpu: "3", memory: "1Gi" });
    // Scored as `light` by LeastAllocated (100m and 200Mi are the defaults it counts for no request),
    // but BalancedAllocation counts what is requested.
    const cpuOnly = requesting({ cpu: "100m" });
    const memoryOnly = requesting({ memory: "200Mi" });
    const small = readyNode("a");
    const resized = readyNode("a", { cpu: "64" });
    const usage = emptyUsage();
    const score = (p: Pod, node: Node) => scoreNodes(p, [{ node, usage }])[0]!;
    // What a usage never scored before gives for the same pods and Node.
    const fresh = (p: Pod, node: Node, pods: Pod[]) => {
      const unscored = emptyUsage();
      for (const placed of pods) addToUsage(unscored, placed);
      return scoreNodes(p, [{ node, usage: unscored }])[0]!;
    };

    const idle = score(light, small);
    expect(score(light, small)).toBe(idle);
    addToUsage(usage, heavy);
    const busy = score(light, small);
    expect(busy).toBeLessThan(idle);
    expect(busy).toBe(fresh(light, small, [heavy]));
    for (const other of [heavy, cpuOnly, memoryOnly]) {
      expect(score(light, small)).toBe(busy);
      expect(score(other, small)).toBe(fresh(other, small, [heavy]));
      expect(score(other, small)).not.toBe(busy);
    }
    // The same requests, but a second container that asks for no cpu (or no memory), which
    // LeastAllocated counts with its default where BalancedAllocation counts nothing.
    const both = requesting({ cpu: "100m", memory: "200Mi" });
    for (const requests of [{ memory: "0" }, { cpu: "0" }]) {
      const two: Pod = {
        ...both,
        spec: { ...both.spec!, containers: [...(both.spec!.containers ?? []), { name: "d", image: "x", resources: { requests } }] },
      };
      expect(score(both, small)).toBe(fresh(both, small, [heavy]));
      expect(score(two, small)).toBe(fresh(two, small, [heavy]));
      expect(score(two, small)).not.toBe(score(both, small));
    }
    expect(score(light, small)).toBe(busy);
    expect(score(light, resized)).toBe(fresh(light, resized, [heavy]));
    expect(score(light, resized)).not.toBe(busy);
    removeFromUsage(usage, heavy);
    expect(score(light, small)).toBe(idle);
  });
});
