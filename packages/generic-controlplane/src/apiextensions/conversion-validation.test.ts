import { describe, expect, it } from "vitest";
import { validateConversion } from "./validation.js";

/** upstream `validateConversionReviewVersions` for a Webhook conversion's `conversionReviewVersions`. */
describe("conversionReviewVersions", () => {
  const errors = (versions: string[]) =>
    validateConversion(
      { strategy: "Webhook", webhook: { clientConfig: { url: "https://example.com/convert" }, conversionReviewVersions: versions } },
      "spec.conversion",
    ).map((e) => [e.type, e.field, e.value, e.detail]);
  const path = "spec.conversion.webhook.conversionReviewVersions";

  it("requires at least one version", () => {
    expect(errors([])).toEqual([["FieldValueRequired", path, undefined, ""]]);
  });

  it("refuses a list without v1 or v1beta1, naming the versions", () => {
    expect(errors(["v2", "v3"])).toEqual([["FieldValueInvalid", path, ["v2", "v3"], "must include at least one of v1, v1beta1"]]);
  });

  it("refuses duplicates and versions that are no DNS-1035 label", () => {
    expect(errors(["v1", "v1", "V2"])).toEqual([
      ["FieldValueInvalid", `${path}[1]`, "v1", "duplicate version"],
      [
        "FieldValueInvalid",
        `${path}[2]`,
        "V2",
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      ],
    ]);
  });

  it("accepts v1 or v1beta1 among others", () => {
    expect(errors(["v2", "v1beta1"])).toEqual([]);
  });
});
