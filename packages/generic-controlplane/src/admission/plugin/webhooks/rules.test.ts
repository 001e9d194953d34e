import { describe, expect, it } from "vitest";
import { configMapsResource, namespacesResource } from "../../../control-plane/builtin-resources.js";
import type { AdmissionAttributes } from "../../types.js";
import { isExemptAdmissionConfigurationResource, ruleMatches } from "./rules.js";
import { mutatingWebhookConfigurationsResource } from "./configurations.js";

const attributes = (overrides: Partial<AdmissionAttributes>): AdmissionAttributes => ({
  operation: "CREATE",
  definition: configMapsResource,
  namespace: "default",
  name: "x",
  subresource: "",
  object: undefined,
  oldObject: undefined,
  dryRun: false,
  ...overrides,
});

const rule = { operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] };

describe("ruleMatches (upstream rules.Matcher)", () => {
  it("matches operations, groups, versions and resources exactly or by wildcard", () => {
    expect(ruleMatches(rule, attributes({}))).toBe(true);
    expect(ruleMatches(rule, attributes({ operation: "UPDATE" }))).toBe(false);
    expect(ruleMatches({ ...rule, operations: ["*"] }, attributes({ operation: "DELETE" }))).toBe(true);
    expect(ruleMatches({ ...rule, apiGroups: ["apps"] }, attributes({}))).toBe(false);
    expect(ruleMatches({ ...rule, apiVersions: ["v2"] }, attributes({}))).toBe(false);
    expect(ruleMatches({ ...rule, resources: ["secrets"] }, attributes({}))).toBe(false);
    expect(ruleMatches({ ...rule, apiGroups: ["*"], apiVersions: ["*"], resources: ["*"] }, attributes({}))).toBe(true);
  });

  it("tells subresources apart: `*` is main resources only, `*/*` everything, `*/status` any status, `x/*` x and its subresources", () => {
    const status = attributes({ subresource: "status" });
    expect(ruleMatches({ ...rule, resources: ["*"] }, status)).toBe(false);
    expect(ruleMatches({ ...rule, resources: ["*/*"] }, status)).toBe(true);
    expect(ruleMatches({ ...rule, resources: ["*/status"] }, status)).toBe(true);
    expect(ruleMatches({ ...rule, resources: ["configmaps/status"] }, status)).toBe(true);
    expect(ruleMatches({ ...rule, resources: ["configmaps/status"] }, attributes({}))).toBe(false);
    // Upstream's matcher lets `x/*` cover x itself too (a `*` subresource matches the empty one).
    expect(ruleMatches({ ...rule, resources: ["configmaps/*"] }, attributes({}))).toBe(true);
  });

  it("treats namespaces as cluster-scoped for scope", () => {
    const nsRule = { ...rule, resources: ["namespaces"] };
    const namespace = attributes({ definition: namespacesResource, namespace: undefined, name: "team" });
    expect(ruleMatches({ ...nsRule, scope: "Cluster" }, namespace)).toBe(true);
    expect(ruleMatches({ ...nsRule, scope: "Namespaced" }, namespace)).toBe(false);
    expect(ruleMatches({ ...rule, scope: "Namespaced" }, attributes({}))).toBe(true);
    expect(ruleMatches({ ...rule, scope: "Cluster" }, attributes({}))).toBe(false);
    expect(ruleMatches({ ...rule, scope: "*" }, attributes({}))).toBe(true);
  });

  it("exempts the admission configuration resources", () => {
    expect(isExemptAdmissionConfigurationResource(attributes({ definition: mutatingWebhookConfigurationsResource }))).toBe(true);
    expect(isExemptAdmissionConfigurationResource(attributes({}))).toBe(false);
  });
});
