import {
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
  type IValidatingAdmissionPolicy,
  type IValidatingAdmissionPolicyBinding,
} from "kubernetes-models/admissionregistration.k8s.io/v1";
import { Deployment } from "kubernetes-models/apps/v1";
import { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from "kubernetes-models/rbac.authorization.k8s.io/v1";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { agentManifests, agentManifestsYaml } from "./manifests.js";

const models: Record<string, new (data: never) => { validate(): void }> = {
  ClusterRole,
  ClusterRoleBinding,
  Role,
  RoleBinding,
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
  Deployment,
};

describe("agentManifests", () => {
  const objects = agentManifests({ image: "example.com/balloon-agent:1" });

  it("validates against the upstream schemas", () => {
    for (const object of objects) {
      const Model = models[object.kind ?? ""];
      if (!Model) throw new Error(`no schema for ${String(object.kind)}`);
      new Model(object as never).validate();
    }
  });

  it("confines the agent's resizes to balloon pods with a ValidatingAdmissionPolicy RBAC cannot express", () => {
    const policy = objects.find((o) => o.kind === "ValidatingAdmissionPolicy") as unknown as IValidatingAdmissionPolicy;
    expect(policy.spec?.matchConstraints?.resourceRules).toEqual([
      { apiGroups: [""], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["pods/resize"] },
    ]);
    expect(policy.spec?.matchConditions?.[0]?.expression).toBe(
      'request.userInfo.username == "system:serviceaccount:kube-system:node-balloon-resizer"',
    );
    expect(policy.spec?.validations?.[0]).toMatchObject({
      expression:
        'has(oldObject.metadata.labels) && "balloon.kubekit.dev/balloon" in oldObject.metadata.labels && oldObject.metadata.labels["balloon.kubekit.dev/balloon"] == "true"',
      reason: "Forbidden",
    });
    const binding = objects.find((o) => o.kind === "ValidatingAdmissionPolicyBinding") as unknown as IValidatingAdmissionPolicyBinding;
    expect(binding.spec).toEqual({ policyName: policy.metadata?.name, validationActions: ["Deny"] });
  });

  it("prints the balloon bundle and the agent's objects in apply order, without YAML anchors", () => {
    const text = agentManifestsYaml({ image: "example.com/balloon-agent:1" });
    expect(text).not.toMatch(/[&*]a\d/);
    const kinds = parseAllDocuments(text).map((doc) => (doc.toJS() as { kind: string }).kind);
    expect(kinds).toEqual([
      "PriorityClass",
      "ServiceAccount",
      "ClusterRole",
      "ClusterRoleBinding",
      "Role",
      "RoleBinding",
      "DaemonSet",
      "Role",
      "RoleBinding",
      "Role",
      "RoleBinding",
      "ClusterRole",
      "ClusterRoleBinding",
      "ValidatingAdmissionPolicy",
      "ValidatingAdmissionPolicyBinding",
      "Deployment",
    ]);
  });
});
