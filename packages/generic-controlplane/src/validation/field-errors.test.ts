import { describe, expect, it } from "vitest";
import {
  fieldDuplicate,
  fieldErrorBody,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTooLong,
  invalidError,
  keyPath,
  toStatusCauses,
} from "./field-errors.js";

describe("field error formatting", () => {
  it.each([
    [fieldInvalid("metadata.name", "Foo", "bad"), `Invalid value: "Foo": bad`],
    [fieldInvalid("spec.replicas", 3, "too big"), "Invalid value: 3: too big"],
    [fieldRequired("metadata.namespace"), "Required value"],
    [fieldRequired("data", "needs one"), "Required value: needs one"],
    [fieldForbidden("spec", "nope"), "Forbidden: nope"],
    [fieldDuplicate("data[a]", "a"), `Duplicate value: "a"`],
    [fieldNotSupported("type", "x", ["A", "B"]), `Unsupported value: "x": supported values: "A", "B"`],
    [fieldTooLong("metadata.annotations", "", 262144), "Too long: may not be more than 262144 bytes"],
  ])("%j → %s", (error, body) => {
    expect(fieldErrorBody(error)).toBe(body);
  });

  it("builds a 422 like NewInvalid, with the group in the message and one cause per error", () => {
    const errors = [fieldInvalid(keyPath("data", "a b"), "a b", "bad key"), fieldRequired("spec.holder")];
    const err = invalidError({ group: "coordination.k8s.io", kind: "Lease" }, "l1", errors);
    expect(err.httpStatus).toBe(422);
    expect(err.message).toBe(
      `Lease.coordination.k8s.io "l1" is invalid: [data[a b]: Invalid value: "a b": bad key, spec.holder: Required value]`,
    );
    expect(err.toStatus().details).toEqual({
      name: "l1",
      group: "coordination.k8s.io",
      kind: "Lease",
      causes: toStatusCauses(errors),
    });
    expect(toStatusCauses(errors)[0]).toEqual({
      reason: "FieldValueInvalid",
      message: `Invalid value: "a b": bad key`,
      field: "data[a b]",
    });
  });

  it("keeps core kinds unqualified", () => {
    const err = invalidError({ group: "", kind: "ConfigMap" }, "c", [fieldInvalid("data[]", "", "x")]);
    expect(err.message).toBe(`ConfigMap "c" is invalid: data[]: Invalid value: "": x`);
  });
});

// Ported from apimachinery pkg/api/errors/errors_test.go (TestNewInvalid): NewInvalid of one field
// error, its cause and message. (The NotFound field error type has no constructor here.)
describe("invalidError (TestNewInvalid)", () => {
  it.each([
    [fieldDuplicate("field[0].name", "bar"), "FieldValueDuplicate", `Kind "name" is invalid: field[0].name: Duplicate value: "bar"`],
    [
      fieldInvalid("field[0].name", "bar", "detail"),
      "FieldValueInvalid",
      `Kind "name" is invalid: field[0].name: Invalid value: "bar": detail`,
    ],
    [
      fieldNotSupported("field[0].name", "bar", []),
      "FieldValueNotSupported",
      `Kind "name" is invalid: field[0].name: Unsupported value: "bar"`,
    ],
    [fieldRequired("field[0].name", ""), "FieldValueRequired", `Kind "name" is invalid: field[0].name: Required value`],
  ])("%j", (fieldError, reason, message) => {
    const status = invalidError({ group: "", kind: "Kind" }, "name", [fieldError]).toStatus();
    expect(status.code).toBe(422);
    expect(status.reason).toBe("Invalid");
    expect(status.details).toEqual({
      kind: "Kind",
      name: "name",
      causes: [{ reason, field: "field[0].name", message: fieldErrorBody(fieldError) }],
    });
    expect(status.message).toBe(message);
  });

  it("has no causes and no list without errors", () => {
    const status = invalidError({ group: "", kind: "Kind" }, "name", []).toStatus();
    expect(status).toMatchObject({
      code: 422,
      reason: "Invalid",
      message: 'Kind "name" is invalid',
      details: { kind: "Kind", name: "name" },
    });
    expect(status.details).not.toHaveProperty("causes");
  });
});
