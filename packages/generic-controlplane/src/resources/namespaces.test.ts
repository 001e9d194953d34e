import { describe, expect, it } from "vitest";
import { isNamespaceTerminating, namespaceFinalizeStrategy, namespacesResource, shouldDeleteNamespaceDuringUpdate } from "./namespaces.js";
import { cells, createErrors, updateErrors } from "./test-helpers.js";
import { formatFieldError } from "../validation/index.js";

const ns = (fields: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) => ({
  apiVersion: "v1",
  kind: "Namespace",
  metadata: { name: "team-a", ...metadata },
  ...fields,
});

describe("Namespace create", () => {
  it("starts Active with the kubernetes finalizer and the name label", () => {
    const { object, errors } = createErrors(namespacesResource, ns({ status: { phase: "Terminating" } }, { labels: { team: "a" } }));
    expect(errors).toEqual([]);
    expect(object).toMatchObject({
      spec: { finalizers: ["kubernetes"] },
      status: { phase: "Active" },
      metadata: { labels: { team: "a", "kubernetes.io/metadata.name": "team-a" } },
    });
  });

  it("appends kubernetes to user finalizers once", () => {
    expect(createErrors(namespacesResource, ns({ spec: { finalizers: ["example.com/x"] } })).object["spec"]).toEqual({
      finalizers: ["example.com/x", "kubernetes"],
    });
    expect(createErrors(namespacesResource, ns({ spec: { finalizers: ["kubernetes"] } })).object["spec"]).toEqual({
      finalizers: ["kubernetes"],
    });
  });

  it.each([
    ["qualified", ["example.com/cleanup"], []],
    ["standard", ["orphan"], []],
    [
      "bare unknown",
      ["cleanup"],
      [`spec.finalizers: Invalid value: "cleanup": name is neither a standard finalizer name nor is it fully qualified`],
    ],
  ])("finalizer names: %s", (_name, finalizers, expected) => {
    expect(createErrors(namespacesResource, ns({ spec: { finalizers } })).errors).toEqual(expected);
  });

  it("serves a DNS-1123 label name rule, status, and a status.phase field selector", () => {
    expect(namespacesResource.nameRule).toBe("DNS1123Label");
    expect(namespacesResource.statusSubresource).toBe(true);
    expect(namespacesResource.scope).toBe("Cluster");
    expect(namespacesResource.fieldSelectors?.["status.phase"]?.(ns({ status: { phase: "Active" } }))).toBe("Active");
    expect(cells(namespacesResource, ns({ status: { phase: "Terminating" } }, { creationTimestamp: "2024-01-01T00:00:00Z" }))).toEqual({
      Status: "Terminating",
      Age: "2024-01-01T00:00:00Z",
    });
  });
});

describe("Namespace update", () => {
  const stored = createErrors(namespacesResource, ns()).object;

  it("keeps spec.finalizers on a plain update", () => {
    const { object, errors } = updateErrors(namespacesResource, { ...stored, spec: { finalizers: [] } }, stored);
    expect(errors).toEqual([]);
    expect(object["spec"]).toEqual({ finalizers: ["kubernetes"] });
  });

  it.each([
    ["Active without deletionTimestamp", { phase: "Active" }, undefined, []],
    [
      "Terminating without deletionTimestamp",
      { phase: "Terminating" },
      undefined,
      [`status.Phase: Invalid value: "Terminating": may only be 'Active' if \`deletionTimestamp\` is empty`],
    ],
    [
      "Active with deletionTimestamp",
      { phase: "Active" },
      "2024-01-01T00:00:00Z",
      [`status.Phase: Invalid value: "Active": may only be 'Terminating' if \`deletionTimestamp\` is not empty`],
    ],
    ["missing phase defaults to Active", {}, undefined, []],
  ])("status phase: %s", (_name, status, deletionTimestamp, expected) => {
    const metadata = { ...stored.metadata, ...(deletionTimestamp ? { deletionTimestamp } : {}) };
    const old = { ...stored, metadata };
    expect(updateErrors(namespacesResource, { ...stored, metadata, status }, old).errors).toEqual(expected);
  });
});

describe("Namespace termination and finalize", () => {
  const stored = createErrors(namespacesResource, ns()).object;

  it("a terminating namespace goes during an update once no spec and no metadata finalizers remain", () => {
    const deleting = { ...stored, metadata: { ...stored.metadata, deletionTimestamp: "2024-05-06T07:08:09Z" } };
    expect(isNamespaceTerminating(deleting)).toBe(true);
    expect(isNamespaceTerminating(stored)).toBe(false);
    expect(shouldDeleteNamespaceDuringUpdate(deleting)).toBe(false);
    expect(shouldDeleteNamespaceDuringUpdate({ ...deleting, spec: {} })).toBe(true);
    expect(
      shouldDeleteNamespaceDuringUpdate({ ...deleting, spec: {}, metadata: { ...deleting.metadata, finalizers: ["example.com/x"] } }),
    ).toBe(false);
    expect(shouldDeleteNamespaceDuringUpdate({ ...stored, spec: {} })).toBe(false);
  });

  it("finalize strategy keeps status and validates the new finalizers", () => {
    const object = structuredClone({ ...stored, spec: { finalizers: ["bad"] }, status: { phase: "Terminating" } });
    namespaceFinalizeStrategy.prepareForUpdate?.(object, stored);
    expect(object["status"]).toEqual({ phase: "Active" });
    expect((namespaceFinalizeStrategy.validateUpdate?.(object, stored) ?? []).map(formatFieldError)).toEqual([
      `spec.finalizers: Invalid value: "bad": name is neither a standard finalizer name nor is it fully qualified`,
    ]);
  });
});
