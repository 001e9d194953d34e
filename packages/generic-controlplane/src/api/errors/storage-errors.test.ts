import { describe, expect, it } from "vitest";
import { preconditionFailed, resourceVersionSetOnCreate, tooLargeResourceVersion, tooOldResourceVersion } from "./storage-errors.js";

const leases = { group: "coordination.k8s.io", resource: "leases" };

describe("storage errors", () => {
  it("words a failed precondition as storage.Preconditions.Check, inside the resource's conflict", () => {
    const uid = preconditionFailed(leases, "l", "UID", "a", "b");
    expect(uid.toStatus()).toMatchObject({
      reason: "Conflict",
      code: 409,
      message:
        'Operation cannot be fulfilled on leases.coordination.k8s.io "l": Precondition failed: UID in precondition: a, UID in object meta: b',
      details: { name: "l", group: "coordination.k8s.io", kind: "leases" },
    });
    expect(preconditionFailed({ group: "", resource: "namespaces" }, "n", "ResourceVersion", "1", "2").message).toBe(
      'Operation cannot be fulfilled on namespaces "n": Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: 2',
    );
  });

  it("answers a revision from the future as storage.NewTooLargeResourceVersionError", () => {
    expect(tooLargeResourceVersion(9, 5).toStatus()).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "Timeout: Too large resource version: 9, current: 5",
      reason: "Timeout",
      details: { causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }], retryAfterSeconds: 1 },
      code: 504,
    });
  });

  it("answers a compacted revision with 410 Expired in the watch wording", () => {
    expect(tooOldResourceVersion(3, 7).toStatus()).toMatchObject({
      reason: "Expired",
      code: 410,
      message: "too old resource version: 3 (7)",
    });
  });

  it("refuses a resourceVersion on create", () => {
    expect(resourceVersionSetOnCreate().toStatus()).toMatchObject({
      reason: "BadRequest",
      code: 400,
      message: "resourceVersion should not be set on objects to be created",
    });
  });
});
