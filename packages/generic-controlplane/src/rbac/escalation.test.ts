import { describe, expect, it } from "vitest";
import { breakdownRule, compactRules, compactString, confirmNoEscalation, covers } from "./escalation.js";
import { RuleResolver, type PolicySource } from "./rule-resolver.js";
import type { PolicyRule } from "./types.js";

const r = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule => ({
  verbs,
  apiGroups,
  resources,
  ...(resourceNames ? { resourceNames } : {}),
});
const u = (verbs: string[], nonResourceURLs: string[]): PolicyRule => ({ verbs, nonResourceURLs });

describe("covers (upstream rule_test.go TestCoversExactMatch and friends)", () => {
  it.each([
    ["exact match", [r(["get"], [""], ["configmaps"])], [r(["get"], [""], ["configmaps"])], true],
    ["star verbs, groups and resources", [r(["*"], ["*"], ["*"])], [r(["delete"], ["apps"], ["deployments/scale"])], true],
    ["a missing verb", [r(["get"], [""], ["configmaps"])], [r(["get", "create"], [""], ["configmaps"])], false],
    ["another group", [r(["get"], [""], ["configmaps"])], [r(["get"], ["apps"], ["configmaps"])], false],
    [
      "*/subresource covers every resource's subresource",
      [r(["get"], [""], ["*/status"])],
      [r(["get"], [""], ["pods/status", "namespaces/status"])],
      true,
    ],
    ["a resource does not cover its subresources", [r(["get"], [""], ["pods"])], [r(["get"], [""], ["pods/log"])], false],
    ["names held cover a subset", [r(["get"], [""], ["configmaps"], ["a", "b"])], [r(["get"], [""], ["configmaps"], ["a"])], true],
    ["names held do not cover all names", [r(["get"], [""], ["configmaps"], ["a"])], [r(["get"], [""], ["configmaps"])], false],
    ["no names cover any names", [r(["get"], [""], ["configmaps"])], [r(["get"], [""], ["configmaps"], ["x"])], true],
    ["URL prefix star", [u(["get"], ["/api/*"])], [u(["get"], ["/api/v1", "/api/"])], true],
    ["URL without star is exact", [u(["get"], ["/api"])], [u(["get"], ["/api/v1"])], false],
    ["resource rules do not cover URLs", [r(["*"], ["*"], ["*"])], [u(["get"], ["/metrics"])], false],
  ])("%s", (_name, owner, wanted, expected) => {
    expect(covers(owner, wanted).covered).toBe(expected);
  });

  it("reports the broken-down rules that are missing", () => {
    const { missing } = covers([r(["get"], [""], ["configmaps"])], [r(["get", "create"], ["", "apps"], ["configmaps"])]);
    expect(missing).toEqual([
      r(["create"], [""], ["configmaps"]),
      r(["get"], ["apps"], ["configmaps"]),
      r(["create"], ["apps"], ["configmaps"]),
    ]);
  });
});

describe("breakdown, compaction and the compact string", () => {
  it("breaks a rule into one per group, resource, verb and name, and URLs per verb", () => {
    expect(breakdownRule({ verbs: ["get", "list"], apiGroups: [""], resources: ["a"], resourceNames: ["x"] })).toEqual([
      r(["get"], [""], ["a"], ["x"]),
      r(["list"], [""], ["a"], ["x"]),
    ]);
    expect(breakdownRule(u(["get"], ["/a", "/b"]))).toEqual([u(["get"], ["/a"]), u(["get"], ["/b"])]);
  });

  it("merges the verbs of simple rules and prints them as upstream", () => {
    const compacted = compactRules([r(["create"], [""], ["configmaps"]), u(["get"], ["/x"]), r(["delete"], [""], ["configmaps"])]);
    expect(compacted.map(compactString)).toEqual([
      '{NonResourceURLs:["/x"], Verbs:["get"]}',
      '{APIGroups:[""], Resources:["configmaps"], Verbs:["create" "delete"]}',
    ]);
    expect(compactString(r(["get"], ["apps"], ["deployments"], ["web"]))).toBe(
      '{APIGroups:["apps"], Resources:["deployments"], ResourceNames:["web"], Verbs:["get"]}',
    );
  });
});

describe("confirmNoEscalation", () => {
  const source: PolicySource = {
    getRole: () => Promise.resolve(undefined),
    getClusterRole: (name) =>
      Promise.resolve(name === "reader" ? { metadata: { name }, rules: [r(["get"], [""], ["configmaps"])] } : undefined),
    listRoleBindings: () => Promise.resolve([]),
    listClusterRoleBindings: () =>
      Promise.resolve([
        {
          metadata: { name: "b" },
          roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "reader" },
          subjects: [{ kind: "Group", name: "g" }],
        },
        {
          metadata: { name: "ghost" },
          roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "ghost" },
          subjects: [{ kind: "Group", name: "g" }],
        },
      ]),
  };
  const resolver = new RuleResolver(source);
  const alice = { name: "alice", groups: ["g", "system:authenticated"] };

  it("passes rules the user holds and names the rest, with the resolution errors", async () => {
    expect(await confirmNoEscalation(resolver, alice, "", [r(["get"], [""], ["configmaps"])])).toBeUndefined();
    expect(await confirmNoEscalation(resolver, alice, "", [r(["get", "update"], [""], ["configmaps", "secrets"])])).toBe(
      'user "alice" (groups=["g" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["configmaps"], Verbs:["update"]}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "update"]}' +
        '; resolution errors: [clusterrole.rbac.authorization.k8s.io "ghost" not found]',
    );
  });
});
