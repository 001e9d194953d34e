import { describe, expect, it } from "vitest";
import { verifyAdmissionResponse } from "./admission-review.js";

const review = (response: unknown, apiVersion = "admission.k8s.io/v1") => ({ apiVersion, kind: "AdmissionReview", response });
const patch = Buffer.from(JSON.stringify([{ op: "add", path: "/data/x", value: "y" }])).toString("base64");

describe("verifyAdmissionResponse (upstream VerifyAdmissionResponse, v1)", () => {
  it("accepts a matching answer and decodes its patch, warnings and audit annotations", () => {
    expect(
      verifyAdmissionResponse(
        "u1",
        true,
        review({ uid: "u1", allowed: true, patchType: "JSONPatch", patch, warnings: ["w"], auditAnnotations: { k: "v" } }),
      ),
    ).toEqual({
      allowed: true,
      result: undefined,
      patch: [{ op: "add", path: "/data/x", value: "y" }],
      warnings: ["w"],
      auditAnnotations: { k: "v" },
    });
  });

  it("decodes a patch's int64s beyond 2^53 exactly", () => {
    const bigPatch = Buffer.from('[{"op":"add","path":"/spec/total","value":9007199254740993}]').toString("base64");
    const verified = verifyAdmissionResponse("u1", true, review({ uid: "u1", allowed: true, patchType: "JSONPatch", patch: bigPatch }));
    expect(verified.patch).toEqual([{ op: "add", path: "/spec/total", value: 9007199254740993n }]);
  });

  it("keeps audit annotation keys named like Object.prototype's members as ordinary keys", () => {
    const body = JSON.parse(
      '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u1","allowed":true,"auditAnnotations":{"__proto__":"a","constructor":"b"}}}',
    ) as unknown;
    const { auditAnnotations } = verifyAdmissionResponse("u1", false, body);
    expect(Object.getPrototypeOf(auditAnnotations)).toBe(Object.prototype);
    expect(JSON.stringify(auditAnnotations)).toBe('{"__proto__":"a","constructor":"b"}');
  });

  it("refuses answers that are absent, for another request or of another version", () => {
    expect(() => verifyAdmissionResponse("u1", false, {})).toThrow("webhook response was absent");
    expect(() => verifyAdmissionResponse("u1", false, review({ uid: "u2", allowed: true }))).toThrow(
      'expected response.uid="u1", got "u2"',
    );
    expect(() => verifyAdmissionResponse("u1", false, review({ uid: "u1", allowed: true }, "admission.k8s.io/v1beta1"))).toThrow(
      "expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got admission.k8s.io/v1beta1, Kind=AdmissionReview",
    );
    expect(() => verifyAdmissionResponse("u1", false, review({ uid: "u1", allowed: true }, "v1"))).toThrow("got /v1, Kind=AdmissionReview");
  });

  it("refuses patches without a JSONPatch type, and any patch from a validating webhook", () => {
    expect(() => verifyAdmissionResponse("u1", true, review({ uid: "u1", allowed: true, patch }))).toThrow(
      "webhook returned response.patch but not response.patchType",
    );
    expect(() => verifyAdmissionResponse("u1", true, review({ uid: "u1", allowed: true, patch, patchType: "MergePatch" }))).toThrow(
      'webhook returned invalid response.patchType of "MergePatch"',
    );
    expect(() => verifyAdmissionResponse("u1", false, review({ uid: "u1", allowed: true, patch, patchType: "JSONPatch" }))).toThrow(
      "validating webhook may not return response.patch",
    );
  });
});
