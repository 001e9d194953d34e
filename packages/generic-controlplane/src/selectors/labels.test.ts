import { describe, expect, it } from "vitest";
import { isControlPlaneError } from "../api/errors/control-plane-error.js";
import { parseLabelSelector } from "./labels.js";

// The grammar is @kubekit/apimachinery's (tested there); the server answers a bad one with a 400.
describe("parseLabelSelector on the server", () => {
  it("answers a selector that does not parse with BadRequest and upstream's message", () => {
    let thrown: unknown;
    try {
      parseLabelSelector("a b");
    } catch (error) {
      thrown = error;
    }
    expect(isControlPlaneError(thrown)).toBe(true);
    expect(thrown).toMatchObject({
      code: "BadRequest",
      message: "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt",
    });
  });
});
