import { describe, expect, it } from "vitest";
import { formatFieldError } from "../validation/field-errors.js";
import { labelSelectorFromObject, validateLabelSelectorObject } from "./label-selector-object.js";

describe("metav1.LabelSelector objects", () => {
  it("match like LabelSelectorAsSelector: matchLabels and every operator ANDed, {} everything", () => {
    const selector = labelSelectorFromObject({
      matchLabels: { app: "web" },
      matchExpressions: [
        { key: "tier", operator: "In", values: ["a", "b"] },
        { key: "legacy", operator: "DoesNotExist" },
        { key: "env", operator: "NotIn", values: ["prod"] },
        { key: "team", operator: "Exists" },
      ],
    });
    expect(selector.matches({ app: "web", tier: "a", team: "x" })).toBe(true);
    expect(selector.matches({ app: "web", tier: "c", team: "x" })).toBe(false);
    expect(selector.matches({ app: "web", tier: "a", team: "x", legacy: "" })).toBe(false);
    expect(selector.matches({ app: "web", tier: "a", team: "x", env: "prod" })).toBe(false);
    expect(selector.matches({ app: "web", tier: "a" })).toBe(false);
    expect(labelSelectorFromObject({}).empty).toBe(true);
    expect(labelSelectorFromObject({}).matches(undefined)).toBe(true);
  });

  it("validates like ValidateLabelSelector", () => {
    const errors = validateLabelSelectorObject(
      {
        matchLabels: { "bad key!": "v" },
        matchExpressions: [
          { key: "a", operator: "In" },
          { key: "b", operator: "Exists", values: ["x"] },
          { key: "c", operator: "Near", values: ["x"] },
        ],
      },
      "webhooks[0].namespaceSelector",
    ).map(formatFieldError);
    expect(errors).toEqual([
      "webhooks[0].namespaceSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      "webhooks[0].namespaceSelector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      'webhooks[0].namespaceSelector.matchExpressions[2].operator: Invalid value: "Near": not a valid selector operator',
      expect.stringMatching(/^webhooks\[0\]\.namespaceSelector\.matchLabels: Invalid value: "bad key!": name part must consist of alphanumeric characters/),
    ]);
  });
});
