import { describe, expect, it } from "vitest";
import { formatFieldError } from "../validation/index.js";
import { validateWebhookConfiguration } from "../admission/plugin/webhooks/validation.js";
import { validateClusterRole } from "./validation.js";

// A bad selector gets the same answer wherever a metav1.LabelSelector is validated: ValidateLabelSelector's.
describe("a ClusterRole's aggregationRule selectors", () => {
  const selector = { matchExpressions: [{ key: "rbac.example.com/aggregate", operator: "Near", values: ["-x"] }] };

  it("are validated by ValidateLabelSelector, with its messages and paths", () => {
    const errors = validateClusterRole({
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: "r" },
      aggregationRule: { clusterRoleSelectors: [selector] },
    }).map(formatFieldError);
    expect(errors).toEqual([
      'aggregationRule.clusterRoleSelectors[0].matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator',
      expect.stringMatching(
        /^aggregationRule\.clusterRoleSelectors\[0\]\.matchExpressions\[0\]\.values\[0\]: Invalid value: "-x": a valid label must be/,
      ),
    ]);
  });

  it("get the answer a webhook's objectSelector gets", () => {
    const strip = (error: string) => error.replace(/^.*?\.matchExpressions/, "matchExpressions");
    const role = validateClusterRole({
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: "r" },
      aggregationRule: { clusterRoleSelectors: [selector] },
    });
    const webhook = validateWebhookConfiguration(
      {
        metadata: { name: "w" },
        webhooks: [
          {
            name: "w.example.com",
            clientConfig: { url: "https://example.com" },
            sideEffects: "None",
            admissionReviewVersions: ["v1"],
            objectSelector: selector,
          },
        ],
      },
      "Validating",
      undefined,
    ).filter((error) => error.field.includes("objectSelector"));
    expect(role.map(formatFieldError).map(strip)).toEqual(webhook.map(formatFieldError).map(strip));
  });
});
