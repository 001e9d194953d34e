/**
 * Ports apimachinery `managedfields/internal/conflict_test.go` TestNewConflictError. Left out: the
 * "using v1 at <time>" form, which only appears for a manager identifier carrying a time; identifiers
 * never carry one (BuildManagerIdentifier drops it), so real conflicts print "using v1".
 */
import { describe, expect, it } from "vitest";
import { conflictError } from "./conflict.js";
import { FieldSet } from "./field-set.js";
import { makePath } from "./fields-v1.js";
import { managerIdentifier, type ManagerEntry } from "./managed-fields.js";

const manager = (name: string, operation: "Apply" | "Update", subresource = ""): { id: string; manager: ManagerEntry } => {
  const entry: ManagerEntry = {
    manager: name,
    operation,
    apiVersion: "v1",
    subresource,
    time: "2001-02-03T04:05:06Z",
    fields: new FieldSet(),
  };
  return { id: managerIdentifier(entry), manager: entry };
};

describe("conflictError", () => {
  it("names one conflict in the message and in a FieldManagerConflict cause", () => {
    const error = conflictError([{ ...manager("foo", "Update"), path: makePath("f:spec", "f:replicas") }]);
    expect(error.httpStatus).toBe(409);
    expect(error.toStatus()).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      reason: "Conflict",
      code: 409,
      message: 'Apply failed with 1 conflict: conflict with "foo" using v1: .spec.replicas',
      details: { causes: [{ reason: "FieldManagerConflict", message: 'conflict with "foo" using v1', field: ".spec.replicas" }] },
    });
  });

  it("groups several conflicts by manager, managers in order", () => {
    const error = conflictError([
      { ...manager("foo", "Update"), path: makePath("f:spec", "f:replicas") },
      { ...manager("bar", "Apply"), path: makePath("f:metadata", "f:labels", "f:app") },
    ]);
    expect(error.message).toBe(
      'Apply failed with 2 conflicts: conflicts with "bar":\n- .metadata.labels.app\nconflicts with "foo" using v1:\n- .spec.replicas',
    );
    expect(error.details?.causes).toEqual([
      { reason: "FieldManagerConflict", message: 'conflict with "bar"', field: ".metadata.labels.app" },
      { reason: "FieldManagerConflict", message: 'conflict with "foo" using v1', field: ".spec.replicas" },
    ]);
  });

  it("names the subresource a manager wrote through", () => {
    const error = conflictError([{ ...manager("foo", "Update", "scale"), path: makePath("f:spec", "f:replicas") }]);
    expect(error.message).toBe('Apply failed with 1 conflict: conflict with "foo" with subresource "scale" using v1: .spec.replicas');
  });
});
