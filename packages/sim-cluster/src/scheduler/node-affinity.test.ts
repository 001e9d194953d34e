import { describe, expect, it } from "vitest";
import type { Node } from "../resources/nodes.js";
import type { Pod } from "../resources/pods.js";
import {
  preferredNodeAffinityScore,
  requiredNodeAffinityMatches,
  type NodeSelectorRequirement,
  type NodeSelectorTerm,
} from "./node-affinity.js";

const node = (name: string, labels: Record<string, string> = {}): Node => ({ metadata: { name, labels } });
const required = (...terms: NodeSelectorTerm[]): Pod => ({
  metadata: { name: "p" },
  spec: { containers: [], affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } },
});
const expr = (key: string, operator: string, values?: string[]): NodeSelectorRequirement => ({
  key,
  operator,
  ...(values ? { values } : {}),
});

// After pkg/scheduler/framework/plugins/nodeaffinity/node_affinity_test.go (TestNodeAffinity)
// and component-helpers' TestNodeSelectorMatch.
describe("NodeAffinity filter", () => {
  const cases: Array<{ name: string; pod: Pod; labels?: Record<string, string>; nodeName?: string; fits: boolean }> = [
    { name: "no selector or affinity fits every node", pod: { spec: { containers: [] } }, fits: true },
    { name: "nodeSelector label missing", pod: { spec: { containers: [], nodeSelector: { foo: "bar" } } }, fits: false },
    {
      name: "nodeSelector matches",
      pod: { spec: { containers: [], nodeSelector: { foo: "bar" } } },
      labels: { foo: "bar", baz: "x" },
      fits: true,
    },
    {
      name: "nodeSelector value differs",
      pod: { spec: { containers: [], nodeSelector: { foo: "bar" } } },
      labels: { foo: "baz" },
      fits: false,
    },
    {
      name: "In matches one of the values",
      pod: required({ matchExpressions: [expr("foo", "In", ["value1", "value2"])] }),
      labels: { foo: "value2" },
      fits: true,
    },
    { name: "In without the label", pod: required({ matchExpressions: [expr("foo", "In", ["value1"])] }), labels: {}, fits: false },
    {
      name: "NotIn passes when the label is absent",
      pod: required({ matchExpressions: [expr("foo", "NotIn", ["a"])] }),
      labels: {},
      fits: true,
    },
    {
      name: "NotIn fails on a listed value",
      pod: required({ matchExpressions: [expr("foo", "NotIn", ["a"])] }),
      labels: { foo: "a" },
      fits: false,
    },
    { name: "Exists", pod: required({ matchExpressions: [expr("foo", "Exists")] }), labels: { foo: "" }, fits: true },
    {
      name: "DoesNotExist fails when present",
      pod: required({ matchExpressions: [expr("foo", "DoesNotExist")] }),
      labels: { foo: "x" },
      fits: false,
    },
    {
      name: "Gt compares integers",
      pod: required({ matchExpressions: [expr("kernel-version", "Gt", ["0204"])] }),
      labels: { "kernel-version": "0206" },
      fits: true,
    },
    { name: "Gt is strict", pod: required({ matchExpressions: [expr("gpus", "Gt", ["2"])] }), labels: { gpus: "2" }, fits: false },
    { name: "Lt", pod: required({ matchExpressions: [expr("gpus", "Lt", ["3"])] }), labels: { gpus: "2" }, fits: true },
    {
      name: "Gt on a non-integer label never matches",
      pod: required({ matchExpressions: [expr("gpus", "Gt", ["1"])] }),
      labels: { gpus: "many" },
      fits: false,
    },
    {
      name: "Gt with two values is invalid and matches nothing",
      pod: required({ matchExpressions: [expr("gpus", "Gt", ["1", "2"])] }),
      labels: { gpus: "5" },
      fits: false,
    },
    {
      name: "expressions of one term are ANDed",
      pod: required({ matchExpressions: [expr("foo", "In", ["bar"]), expr("zone", "Exists")] }),
      labels: { foo: "bar" },
      fits: false,
    },
    {
      name: "terms are ORed",
      pod: required({ matchExpressions: [expr("foo", "In", ["x"])] }, { matchExpressions: [expr("zone", "Exists")] }),
      labels: { zone: "z" },
      fits: true,
    },
    { name: "an empty term matches nothing", pod: required({}), labels: { foo: "bar" }, fits: false },
    { name: "no terms matches nothing", pod: required(), labels: { foo: "bar" }, fits: false },
    {
      name: "an invalid term is skipped, a valid one still matches",
      pod: required({ matchExpressions: [expr("foo", "Bogus", ["x"])] }, { matchExpressions: [expr("foo", "In", ["bar"])] }),
      labels: { foo: "bar" },
      fits: true,
    },
    {
      name: "matchFields metadata.name In",
      pod: required({ matchFields: [expr("metadata.name", "In", ["node-1"])] }),
      nodeName: "node-1",
      fits: true,
    },
    {
      name: "matchFields metadata.name In another node",
      pod: required({ matchFields: [expr("metadata.name", "In", ["node-2"])] }),
      nodeName: "node-1",
      fits: false,
    },
    {
      name: "matchFields metadata.name NotIn",
      pod: required({ matchFields: [expr("metadata.name", "NotIn", ["node-2"])] }),
      nodeName: "node-1",
      fits: true,
    },
    {
      name: "matchFields on another field is invalid",
      pod: required({ matchFields: [expr("metadata.uid", "In", ["node-1"])] }),
      nodeName: "node-1",
      fits: false,
    },
    {
      name: "matchFields with two values is invalid",
      pod: required({ matchFields: [expr("metadata.name", "In", ["node-1", "node-2"])] }),
      nodeName: "node-1",
      fits: false,
    },
    {
      name: "matchFields and matchExpressions of one term are ANDed",
      pod: required({ matchFields: [expr("metadata.name", "In", ["node-1"])], matchExpressions: [expr("foo", "In", ["bar"])] }),
      nodeName: "node-1",
      labels: { foo: "baz" },
      fits: false,
    },
    {
      name: "nodeSelector and affinity must both match",
      pod: {
        spec: {
          containers: [],
          nodeSelector: { foo: "bar" },
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [expr("zone", "Exists")] }] },
            },
          },
        },
      },
      labels: { foo: "bar" },
      fits: false,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(requiredNodeAffinityMatches(c.pod, node(c.nodeName ?? "node-1", c.labels))).toBe(c.fits);
    });
  }
});

// After TestNodeAffinityPriority: the summed weights of the preferred terms a node matches.
describe("NodeAffinity score", () => {
  const pod: Pod = {
    spec: {
      containers: [],
      affinity: {
        nodeAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 2, preference: { matchExpressions: [expr("foo", "In", ["bar"])] } },
            { weight: 4, preference: { matchExpressions: [expr("key", "In", ["value"])] } },
            { weight: 0, preference: { matchExpressions: [expr("zero", "Exists")] } },
            { weight: 5, preference: {} },
          ],
        },
      },
    },
  };
  it("adds the weights of matching terms; weight 0 and empty terms count nothing", () => {
    expect(preferredNodeAffinityScore(pod, node("a", { foo: "bar" }))).toBe(2);
    expect(preferredNodeAffinityScore(pod, node("b", { foo: "bar", key: "value", zero: "" }))).toBe(6);
    expect(preferredNodeAffinityScore(pod, node("c", {}))).toBe(0);
  });
});
