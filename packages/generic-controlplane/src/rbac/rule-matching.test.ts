import { describe, expect, it } from "vitest";
import { nonResourceURLMatches, resourceMatches, ruleAllowsResource, subjectAppliesTo } from "./rule-matching.js";
import { aggregatedRules } from "./aggregation.js";

describe("rule matching (upstream rbac/v1 helpers)", () => {
  const rule = (resources: string[]) => ({ verbs: ["get"], apiGroups: [""], resources });

  it.each([
    [["pods"], "pods", "", true],
    [["pods"], "pods", "log", false],
    [["pods/log"], "pods", "log", true],
    [["pods/*"], "pods", "log", true],
    [["*/log"], "pods", "log", true],
    [["*/log"], "pods", "", false],
    [["*"], "anything", "sub", true],
  ])("resources %j match %s/%s: %s", (resources, resource, subresource, expected) => {
    expect(resourceMatches(rule(resources), resource, subresource)).toBe(expected);
  });

  it("matches URLs exactly, by trailing star, or all with *", () => {
    expect(nonResourceURLMatches({ verbs: ["get"], nonResourceURLs: ["/healthz"] }, "/healthz")).toBe(true);
    expect(nonResourceURLMatches({ verbs: ["get"], nonResourceURLs: ["/healthz"] }, "/healthz/etcd")).toBe(false);
    expect(nonResourceURLMatches({ verbs: ["get"], nonResourceURLs: ["/healthz/*"] }, "/healthz/etcd")).toBe(true);
    expect(nonResourceURLMatches({ verbs: ["get"], nonResourceURLs: ["*"] }, "/x")).toBe(true);
  });

  it("limits a rule with resourceNames to those names", () => {
    const named = { verbs: ["get"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["a"] };
    expect(ruleAllowsResource(named, { verb: "get", group: "", resource: "configmaps", subresource: "", name: "a" })).toBe(true);
    expect(ruleAllowsResource(named, { verb: "get", group: "", resource: "configmaps", subresource: "", name: "b" })).toBe(false);
    expect(ruleAllowsResource(named, { verb: "list", group: "", resource: "configmaps", subresource: "", name: "" })).toBe(false);
  });

  it("applies subjects to users, groups and service accounts (a RoleBinding's own namespace by default)", () => {
    const sa = { name: "system:serviceaccount:team:bot", groups: ["system:serviceaccounts"] };
    expect(subjectAppliesTo({ kind: "ServiceAccount", name: "bot" }, sa, "team")).toBe(true);
    expect(subjectAppliesTo({ kind: "ServiceAccount", name: "bot" }, sa, "other")).toBe(false);
    expect(subjectAppliesTo({ kind: "ServiceAccount", name: "bot", namespace: "team" }, sa, "")).toBe(true);
    expect(subjectAppliesTo({ kind: "Group", name: "system:serviceaccounts" }, sa, "")).toBe(true);
    expect(subjectAppliesTo({ kind: "User", name: "bot" }, sa, "")).toBe(false);
  });
});

describe("aggregatedRules", () => {
  it("gathers the rules of matching roles in name order, each once, never the role's own", () => {
    const labels = { "rbac.authorization.k8s.io/aggregate-to-view": "true" };
    const view = {
      metadata: { name: "view", labels },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: labels }] },
      rules: [{ verbs: ["old"], apiGroups: [""], resources: ["x"] }],
    };
    const b = {
      metadata: { name: "b", labels },
      rules: [
        { verbs: ["get"], apiGroups: [""], resources: ["b"] },
        { verbs: ["get"], apiGroups: [""], resources: ["a"] },
      ],
    };
    const a = { metadata: { name: "a", labels }, rules: [{ verbs: ["get"], apiGroups: [""], resources: ["a"] }] };
    const other = { metadata: { name: "c" }, rules: [{ verbs: ["get"], apiGroups: [""], resources: ["c"] }] };
    expect(aggregatedRules(view, [view, b, other, a])).toEqual([
      { verbs: ["get"], apiGroups: [""], resources: ["a"] },
      { verbs: ["get"], apiGroups: [""], resources: ["b"] },
    ]);
    const expressions = {
      ...view,
      aggregationRule: {
        clusterRoleSelectors: [
          { matchExpressions: [{ key: "rbac.authorization.k8s.io/aggregate-to-view", operator: "In", values: ["true"] }] },
        ],
      },
    };
    expect(aggregatedRules(expressions, [b])).toHaveLength(2);
  });
});
