import { describe, expect, it } from "vitest";
import { evaluateAuditPolicy, parseAuditPolicy, type AuditAttributes } from "./policy.js";

// The example policy of the Kubernetes auditing documentation, cut to the kinds served here.
const DOCS_POLICY = parseAuditPolicy(`
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: RequestResponse
    resources:
    - group: ""
      resources: ["configmaps"]
  - level: Metadata
    resources:
    - group: ""
      resources: ["secrets/status", "*/finalize"]
  - level: None
    resources:
    - group: ""
      resources: ["configmaps"]
      resourceNames: ["controller-leader"]
  - level: None
    users: ["system:kube-proxy"]
    verbs: ["watch"]
  - level: None
    userGroups: ["system:authenticated"]
    nonResourceURLs: ["/api*", "/version"]
  - level: Request
    resources:
    - group: ""
    - group: "coordination.k8s.io"
      resources: ["leases/*"]
    namespaces: ["kube-system"]
  - level: Metadata
    omitStages: ["ResponseComplete"]
`);

const resource = (
  resource: string,
  extra: Partial<NonNullable<AuditAttributes["resource"]>> = {},
  verb = "get",
  user = { name: "jane", groups: ["system:authenticated"] },
): AuditAttributes => ({
  user,
  verb,
  resource: { group: "", resource, subresource: "", namespace: "default", name: "x", ...extra },
});

describe("evaluateAuditPolicy", () => {
  it("takes the first matching rule, as kube-apiserver's policy checker", () => {
    expect(evaluateAuditPolicy(DOCS_POLICY, resource("configmaps")).level).toBe("RequestResponse");
    // The earlier RequestResponse rule wins over the later None for the same resource.
    expect(evaluateAuditPolicy(DOCS_POLICY, resource("configmaps", { name: "controller-leader" })).level).toBe("RequestResponse");
    expect(evaluateAuditPolicy(DOCS_POLICY, resource("secrets", { subresource: "status" })).level).toBe("Metadata");
    expect(evaluateAuditPolicy(DOCS_POLICY, resource("namespaces", { subresource: "finalize", namespace: undefined })).level).toBe(
      "Metadata",
    );
    expect(evaluateAuditPolicy(DOCS_POLICY, resource("secrets", {}, "watch", { name: "system:kube-proxy", groups: [] })).level).toBe(
      "None",
    );
    expect(
      evaluateAuditPolicy(DOCS_POLICY, {
        user: { name: "jane", groups: ["system:authenticated"] },
        verb: "get",
        path: "/apis/coordination.k8s.io",
      }).level,
    ).toBe("None");
    expect(
      evaluateAuditPolicy(DOCS_POLICY, { user: { name: "jane", groups: ["system:authenticated"] }, verb: "get", path: "/healthz" }),
    ).toEqual({ level: "Metadata", omitStages: ["RequestReceived", "ResponseComplete"], omitManagedFields: false });
    expect(evaluateAuditPolicy(DOCS_POLICY, resource("secrets", { namespace: "kube-system" })).level).toBe("Request");
    expect(
      evaluateAuditPolicy(DOCS_POLICY, {
        ...resource("leases", { namespace: "kube-system" }),
        resource: { group: "coordination.k8s.io", resource: "leases", subresource: "", namespace: "kube-system", name: "l" },
      }).level,
    ).toBe("Request");
    // `pods`-style names do not cover subresources; `leases/*` covers the resource and all of them.
    expect(evaluateAuditPolicy(DOCS_POLICY, resource("configmaps", { subresource: "status" })).level).toBe("Metadata");
    expect(evaluateAuditPolicy(DOCS_POLICY, resource("secrets")).level).toBe("Metadata");
  });

  it("levels a request no rule matches None", () => {
    expect(evaluateAuditPolicy(parseAuditPolicy("rules: [{level: Metadata, verbs: [create]}]"), resource("secrets")).level).toBe("None");
  });

  it("rejects a malformed policy naming the field and the rule", () => {
    expect(() => parseAuditPolicy("rules: [{level: Everything}]")).toThrow(
      'audit policy: rules[0].level: Unsupported value: "Everything": supported values: "None", "Metadata", "Request", "RequestResponse"',
    );
    expect(() => parseAuditPolicy("omitStages: [Sometimes]\nrules: []")).toThrow('omitStages[0]: Unsupported value: "Sometimes"');
    expect(() => parseAuditPolicy("rules: [{level: None, namespaces: [a], nonResourceURLs: [/x]}]")).toThrow(
      "rules cannot apply to both regular resources and non-resource URLs",
    );
    expect(() => parseAuditPolicy("kind: ConfigMap\nrules: []")).toThrow('kind must be Policy, got "ConfigMap"');
    expect(() => parseAuditPolicy("apiVersion: audit.k8s.io/v1")).toThrow("rules: Required value");
  });
});
