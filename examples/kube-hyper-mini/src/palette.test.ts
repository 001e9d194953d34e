import type { AdmissionReviewRequest } from "@kubekit/generic-controlplane";
import { describe, expect, it } from "vitest";
import { reviewWidget } from "./palette.js";

const request = (object: unknown): AdmissionReviewRequest =>
  ({ uid: "u-1", operation: "CREATE", object }) as unknown as AdmissionReviewRequest;

describe("the palette webhook's review", () => {
  it("allows widgets of the palette's colors, answering with the request's uid", () => {
    for (const color of ["red", "green", "blue"])
      expect(reviewWidget(request({ spec: { color, size: 1 } }))).toEqual({ uid: "u-1", allowed: true });
  });

  it("refuses any other color with 403 Forbidden, naming the color and the palette", () => {
    expect(reviewWidget(request({ spec: { color: "Red", size: 1 } }))).toEqual({
      uid: "u-1",
      allowed: false,
      status: { code: 403, reason: "Forbidden", message: 'widget color "Red" is not in the palette (red, green, blue)' },
    });
  });

  it("leaves a missing color to the schema, which requires it", () => {
    expect(reviewWidget(request({ spec: { size: 1 } })).allowed).toBe(true);
    expect(reviewWidget(request(null)).allowed).toBe(true);
  });
});
