import { describe, expect, it } from "vitest";
import type { ControlPlaneErrorCode } from "./control-plane-error.js";
import {
  OPTIMISTIC_LOCK_ERROR_MSG,
  alreadyExists,
  applyConflict,
  conflict,
  forbidden,
  generateNameConflict,
  invalid,
  methodNotSupported,
  notFound,
  serverTimeout,
} from "./resource-errors.js";

const tests = { group: "", resource: "tests" };
const leases = { group: "coordination.k8s.io", resource: "leases" };

/** apimachinery's `SuggestsClientDelay`: a ServerTimeout always asks for a delay, others when they name one. */
function suggestsClientDelay(error: {
  code: ControlPlaneErrorCode;
  details: { retryAfterSeconds?: number } | undefined;
}): [number, boolean] {
  const seconds = error.details?.retryAfterSeconds ?? 0;
  if (error.details !== undefined && error.code === "ServerTimeout") return [seconds, true];
  return [seconds, seconds > 0];
}

// Ported from apimachinery pkg/api/errors/errors_test.go (TestErrorNew): each constructor's reason
// and HTTP status, and the retry hints SuggestsClientDelay reads.
describe("resource errors (TestErrorNew)", () => {
  it.each([
    ["alreadyExists", alreadyExists(tests, "1"), "AlreadyExists", 409],
    ["conflict", conflict(tests, "2", "message"), "Conflict", 409],
    ["notFound", notFound(tests, "3"), "NotFound", 404],
    ["invalid", invalid({ group: "", kind: "Test" }, "2", []), "Invalid", 422],
    ["forbidden", forbidden(tests, "2", "reason"), "Forbidden", 403],
    ["serverTimeout", serverTimeout(tests, "reason", 0), "ServerTimeout", 500],
    ["methodNotSupported", methodNotSupported({ group: "", resource: "foos" }, "delete"), "MethodNotAllowed", 405],
    ["generateNameConflict", generateNameConflict(tests, "3", 1), "AlreadyExists", 409],
  ] as const)("%s is %s with HTTP %d", (_name, error, code, httpStatus) => {
    expect(error.code).toBe(code);
    expect(error.httpStatus).toBe(httpStatus);
    expect(error.toStatus()).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", reason: code, code: httpStatus });
  });

  it("suggests a client delay for a generated-name conflict and any server timeout", () => {
    expect(suggestsClientDelay(generateNameConflict(tests, "3", 1))).toEqual([1, true]);
    expect(suggestsClientDelay(serverTimeout(tests, "doing something", 10))).toEqual([10, true]);
    expect(suggestsClientDelay(serverTimeout(tests, "doing something", 0))).toEqual([0, true]);
    expect(suggestsClientDelay(alreadyExists(tests, "1"))).toEqual([0, false]);
  });
});

describe("resource error wording", () => {
  it("names a core resource bare and a grouped one as resource.group (GroupResource.String)", () => {
    expect(notFound(tests, "a").message).toBe('tests "a" not found');
    expect(notFound(leases, "a").message).toBe('leases.coordination.k8s.io "a" not found');
    expect(alreadyExists(leases, "a").message).toBe('leases.coordination.k8s.io "a" already exists');
    expect(conflict(leases, "a", "the object was created and deleted concurrently; try again").message).toBe(
      'Operation cannot be fulfilled on leases.coordination.k8s.io "a": the object was created and deleted concurrently; try again',
    );
  });

  it("gives a stale write the optimistic-lock message by default", () => {
    expect(conflict(tests, "a").message).toBe(`Operation cannot be fulfilled on tests "a": ${OPTIMISTIC_LOCK_ERROR_MSG}`);
    expect(OPTIMISTIC_LOCK_ERROR_MSG).toBe("the object has been modified; please apply your changes to the latest version and try again");
  });

  it("carries group, resource (as kind) and name in details, leaving out what is empty (omitempty)", () => {
    expect(notFound(leases, "a").toStatus().details).toEqual({ name: "a", group: "coordination.k8s.io", kind: "leases" });
    expect(notFound(tests, "a").toStatus().details).toEqual({ name: "a", kind: "tests" });
    expect(notFound({ group: "", resource: "" }, "").toStatus().details).toEqual({});
    expect(generateNameConflict(tests, "3", 1).toStatus().details).toEqual({ name: "3", kind: "tests", retryAfterSeconds: 1 });
  });

  it("words a generated-name collision", () => {
    expect(generateNameConflict(leases, "l-x1", 1).message).toBe(
      'leases.coordination.k8s.io "l-x1" already exists, the server was not able to generate a unique name for the object',
    );
  });

  it("leaves the resource and the name out of a forbidden message when they are empty", () => {
    expect(forbidden(leases, "a", "no").message).toBe('leases.coordination.k8s.io "a" is forbidden: no');
    expect(forbidden(leases, "", "no").message).toBe("leases.coordination.k8s.io is forbidden: no");
    expect(forbidden({ group: "", resource: "" }, "", "no").message).toBe("forbidden: no");
    expect(forbidden(leases, "", "no").toStatus().details).toEqual({ group: "coordination.k8s.io", kind: "leases" });
  });

  it("words an unsupported action and a server timeout as upstream", () => {
    expect(methodNotSupported(leases, "delete").message).toBe('delete is not supported on resources of kind "leases.coordination.k8s.io"');
    const timeout = serverTimeout(leases, "list", 2);
    expect(timeout.message).toBe(
      "The list operation against leases.coordination.k8s.io could not be completed at this time, please try again.",
    );
    expect(timeout.toStatus().details).toEqual({ name: "list", group: "coordination.k8s.io", kind: "leases", retryAfterSeconds: 2 });
  });

  it("keeps an apply conflict's message and causes as given", () => {
    const causes = [{ reason: "FieldManagerConflict", message: 'conflict with "m"', field: ".data.a" }];
    const error = applyConflict(causes, 'Apply failed with 1 conflict: conflict with "m": .data.a');
    expect(error.toStatus()).toMatchObject({
      reason: "Conflict",
      code: 409,
      message: 'Apply failed with 1 conflict: conflict with "m": .data.a',
      details: { causes },
    });
  });
});

describe("invalid (NewInvalid)", () => {
  const cause = (field: string, message: string) => ({ reason: "FieldValueInvalid", field, message });

  it("qualifies the kind with its group and names the kind in details", () => {
    const error = invalid({ group: "coordination.k8s.io", kind: "Lease" }, "l", [cause("spec.x", "Invalid value: 1: no")]);
    expect(error.message).toBe('Lease.coordination.k8s.io "l" is invalid: spec.x: Invalid value: 1: no');
    expect(error.toStatus().details).toEqual({
      name: "l",
      group: "coordination.k8s.io",
      kind: "Lease",
      causes: [cause("spec.x", "Invalid value: 1: no")],
    });
  });

  it("lists several errors in brackets, each message once, as the field errors' aggregate does", () => {
    const causes = [cause("a", "Required value"), cause("b", "Required value"), cause("a", "Required value")];
    const error = invalid({ group: "", kind: "Kind" }, "name", causes);
    expect(error.message).toBe('Kind "name" is invalid: [a: Required value, b: Required value]');
    expect(error.details?.causes).toHaveLength(3);
  });

  it("has no list and no causes without errors", () => {
    const error = invalid({ group: "", kind: "Kind" }, "name", []);
    expect(error.message).toBe('Kind "name" is invalid');
    expect(error.toStatus().details).toEqual({ name: "name", kind: "Kind" });
  });

  it("answers an options kind without a name", () => {
    const error = invalid({ group: "meta.k8s.io", kind: "PatchOptions" }, "", [
      { reason: "FieldValueRequired", field: "fieldManager", message: "Required value: is required for apply patch" },
    ]);
    expect(error.message).toBe('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
    expect(error.toStatus().details).toMatchObject({ group: "meta.k8s.io", kind: "PatchOptions" });
    expect(error.toStatus().details).not.toHaveProperty("name");
  });
});
