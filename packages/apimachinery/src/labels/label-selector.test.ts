import { describe, expect, it } from "vitest";
import { formatFieldError } from "../validation/field.js";
import { labelSelectorAsSelector, LabelSelectorOperatorError, validateLabelSelector } from "./label-selector.js";

describe("metav1.LabelSelector objects", () => {
  it("match like LabelSelectorAsSelector: matchLabels and every operator ANDed, {} everything", () => {
    const selector = labelSelectorAsSelector({
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
    expect(labelSelectorAsSelector({}).empty).toBe(true);
    expect(labelSelectorAsSelector({}).matches(undefined)).toBe(true);
  });

  it("validates like ValidateLabelSelector", () => {
    const errors = validateLabelSelector(
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
    // matchLabels first, then each expression, as upstream appends them.
    expect(errors).toEqual([
      expect.stringMatching(
        /^webhooks\[0\]\.namespaceSelector\.matchLabels: Invalid value: "bad key!": name part must consist of alphanumeric characters/,
      ),
      "webhooks[0].namespaceSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      "webhooks[0].namespaceSelector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      'webhooks[0].namespaceSelector.matchExpressions[2].operator: Invalid value: "Near": not a valid selector operator',
    ]);
  });
});

// Port of TestLabelSelectorMatchExpression, k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation_test.go.
describe("apimachinery TestLabelSelectorMatchExpression", () => {
  it.each([
    { name: "Valid LabelSelector", key: "key", operator: "In", values: ["value"], wantErrorNumber: 0, message: undefined },
    {
      name: "MatchExpression's key name isn't valid",
      key: "-key",
      operator: "In",
      values: ["value"],
      wantErrorNumber: 1,
      message: "name part must consist of alphanumeric characters",
    },
    {
      name: "MatchExpression's operator isn't valid",
      key: "key",
      operator: "abc",
      values: ["value"],
      wantErrorNumber: 1,
      message: "not a valid selector operator",
    },
    {
      name: "MatchExpression's value name isn't valid",
      key: "key",
      operator: "In",
      values: ["-value"],
      wantErrorNumber: 1,
      message: "a valid label must be an empty string or consist of",
    },
  ])("$name", ({ key, operator, values, wantErrorNumber, message }) => {
    const errors = validateLabelSelector({ matchExpressions: [{ key, operator, values }] }, "labelSelector").map(formatFieldError);
    expect(errors).toHaveLength(wantErrorNumber);
    if (message !== undefined) expect(errors.some((error) => error.includes(message))).toBe(true);
  });

  it("LabelSelectorAsSelector refuses an operator it does not know, as upstream returns an error", () => {
    expect(() => labelSelectorAsSelector({ matchExpressions: [{ key: "key", operator: "abc", values: ["value"] }] })).toThrow(
      LabelSelectorOperatorError,
    );
  });
});
