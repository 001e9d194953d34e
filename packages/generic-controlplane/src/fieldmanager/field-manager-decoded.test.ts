import { beforeEach, describe, expect, it, vi } from "vitest";
import type { KubeObject } from "../api/types.js";
import { cloneJson } from "../patch/json-value.js";
import { configMapsResource } from "../resources/config-maps.js";
import { freezeJson } from "../registry/decoded-values.js";
import { FieldManager } from "./field-manager.js";
import { decodeManagedFields } from "./managed-fields.js";

vi.mock("./managed-fields.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("./managed-fields.js")>();
  return { ...original, decodeManagedFields: vi.fn(original.decodeManagedFields) };
});

const decodes = vi.mocked(decodeManagedFields);

function manager(): FieldManager {
  return new FieldManager({ apiVersion: "v1", kind: "ConfigMap", schema: configMapsResource.schema, statusSubresource: false });
}

const at = (second: number) => ({ time: `2026-01-02T03:04:${String(second).padStart(2, "0")}Z`, subresource: "" });

/** A stored ConfigMap whose `a` the creator owns and whose `b` another manager owns. */
function stored(fm: FieldManager): KubeObject {
  const created: KubeObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "default" }, data: { a: "1" } };
  created.metadata!.managedFields = fm.update(undefined, created, { manager: "creator", ...at(1) })!;
  const next = cloneJson(created);
  (next["data"] as Record<string, string>)["b"] = "2";
  next.metadata!.managedFields = fm.update(created, next, { manager: "other", ...at(2) })!;
  return next;
}

/** The write a new manager makes over `live`: it changes `a`, sending the live managedFields back. */
function takeA(live: KubeObject): KubeObject {
  const next = cloneJson(live);
  (next["data"] as Record<string, string>)["a"] = "changed";
  return next;
}

beforeEach(() => decodes.mockClear());

describe("FieldManager's decoded managedFields", () => {
  it("decodes a stored object's managedFields once for every write that starts from it", () => {
    const fm = manager();
    const live = freezeJson(stored(fm));
    decodes.mockClear();
    const first = fm.update(live, takeA(live), { manager: "taker", ...at(3) });
    // A write that lost its compare-and-swap and starts again from the same stored object, or another write after a no-op.
    const again = fm.update(live, takeA(live), { manager: "taker", ...at(3) });
    expect(decodes).toHaveBeenCalledTimes(1);
    // The first write's ownership changes never reach the second: each gets its own managers.
    expect(again).toEqual(first);
    expect(first?.map((e) => e.manager)).toEqual(["creator", "other", "taker"]);
    expect(first?.[0]?.fieldsV1).toEqual({ "f:data": {} });
  });

  it("decodes the managedFields of an object that can still change on every write", () => {
    const fm = manager();
    const live = stored(fm);
    decodes.mockClear();
    const first = fm.update(live, takeA(live), { manager: "taker", ...at(3) });
    // Another entry's removal in place (the object is not frozen): nothing decoded before may answer for it.
    live.metadata!.managedFields!.splice(1, 1);
    const second = fm.update(live, takeA(live), { manager: "taker", ...at(3) });
    expect(decodes).toHaveBeenCalledTimes(2);
    expect(first?.map((e) => e.manager)).toEqual(["creator", "other", "taker"]);
    expect(second?.map((e) => e.manager)).toEqual(["creator", "taker"]);
  });

  it("decodes managedFields a request changed instead of the stored ones", () => {
    const fm = manager();
    const live = freezeJson(stored(fm));
    fm.update(live, takeA(live), { manager: "taker", ...at(3) });
    const edited = takeA(live);
    edited.metadata!.managedFields = edited.metadata!.managedFields!.filter((e) => e.manager === "creator");
    const written = fm.update(live, edited, { manager: "taker", ...at(3) });
    expect(written?.map((e) => e.manager)).toEqual(["creator", "taker"]);
  });
});
