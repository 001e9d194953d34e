import { describe, expect, it } from "vitest";
import { validatePodUpdate, type Pod } from "./pods.js";

const pod = (spec: Record<string, unknown> = {}): Pod => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "default" },
  spec: { containers: [{ name: "c", image: "x" }], activeDeadlineSeconds: 30, ...spec },
  status: { phase: "Pending" },
});

/** The fields of each error, the way a Status names them. */
const fields = (next: Pod, old: Pod) => validatePodUpdate(next, old).map((error) => `${error.field}: ${error.type}`);

describe("validatePodUpdate", () => {
  it("accepts a write that keeps the stored spec (a status write), keys in any order", () => {
    const next = pod();
    next.status = { phase: "Running" };
    expect(fields(next, pod())).toEqual([]);
    expect(fields(pod({ activeDeadlineSeconds: 30, containers: [{ image: "x", name: "c" }] }), pod())).toEqual([]);
  });

  it("still checks a spec that changed", () => {
    expect(fields(pod({ containers: [{ name: "c", image: "y" }] }), pod())).toEqual([]);
    expect(fields(pod({ containers: [{ name: "d", image: "x" }] }), pod())).toEqual(["spec: FieldValueForbidden"]);
    expect(fields(pod({ activeDeadlineSeconds: 60 }), pod())).toEqual(["spec.activeDeadlineSeconds: FieldValueInvalid"]);
    expect(fields(pod({ containers: [{ name: "c", image: "" }] }), pod())).not.toEqual([]);
  });
});
