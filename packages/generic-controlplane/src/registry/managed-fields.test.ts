import { describe, expect, it } from "vitest";
import { fromFieldsV1, toFieldsV1 } from "./fields-v1.js";
import { updateManagedFields } from "./managed-fields.js";

const SEP = "\u0000";

describe("FieldsV1", () => {
  it("round-trips leaf paths, marking nested maps but not the metadata struct", () => {
    const paths = [`data${SEP}a`, `metadata${SEP}labels${SEP}app`, "type"];
    const fields = toFieldsV1(paths);
    expect(fields).toEqual({ "f:data": { ".": {}, "f:a": {} }, "f:metadata": { "f:labels": { ".": {}, "f:app": {} } }, "f:type": {} });
    expect([...fromFieldsV1(fields)].sort()).toEqual([...paths].sort());
  });

  it("keeps upstream set and map-list keys, so applied entries survive a round trip", () => {
    const upstream = { "f:metadata": { "f:finalizers": { ".": {}, 'v:"a/b"': {} } }, "f:spec": { ".": {}, "f:ports": { ".": {}, 'k:{"port":80}': { ".": {}, "f:port": {} } } } };
    const owned = fromFieldsV1(upstream);
    expect(owned.has(`metadata${SEP}finalizers${SEP}v:"a/b"`)).toBe(true);
    expect(owned.has(`spec${SEP}ports${SEP}k:{"port":80}${SEP}port`)).toBe(true);
    expect(toFieldsV1(owned)).toEqual(upstream);
  });
});

describe("updateManagedFields", () => {
  const update = { manager: "m", apiVersion: "v1", time: "2026-01-01T00:00:00Z", subresource: "" };

  it("owns everything set on create, apart from system metadata and type fields", () => {
    const entries = updateManagedFields(undefined, { apiVersion: "v1", kind: "X", metadata: { name: "a", uid: "u", annotations: { k: "v" } }, spec: { x: 1 } }, update);
    expect(entries).toEqual([
      {
        manager: "m",
        operation: "Update",
        apiVersion: "v1",
        time: update.time,
        fieldsType: "FieldsV1",
        fieldsV1: { "f:metadata": { "f:annotations": { ".": {}, "f:k": {} } }, "f:spec": { ".": {}, "f:x": {} } },
      },
    ]);
  });

  it("returns the previous entries when nothing owned changed", () => {
    const previous = { metadata: { name: "a", managedFields: [{ manager: "x", operation: "Update" as const, fieldsV1: { "f:spec": {} } }] }, spec: 1 };
    expect(updateManagedFields(previous, { metadata: { name: "a", resourceVersion: "9" }, spec: 1 }, update)).toBe(previous.metadata.managedFields);
  });

  it("records status writes under the status subresource only", () => {
    const entries = updateManagedFields({ metadata: {}, spec: { a: 1 } }, { metadata: {}, spec: { a: 2 }, status: { ok: true } }, { ...update, subresource: "status" });
    expect(entries).toEqual([{ manager: "m", operation: "Update", apiVersion: "v1", time: update.time, fieldsType: "FieldsV1", fieldsV1: { "f:status": { ".": {}, "f:ok": {} } }, subresource: "status" }]);
  });
});
