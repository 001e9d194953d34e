import { ControlPlaneError } from "../errors.js";

/**
 * Shape checks kube-apiserver gets for free from decoding into Go structs: a metadata field of
 * the wrong JSON type is a 400 with encoding/json's wording, before any validation runs.
 */

type GoType = "string" | "int64" | "v1.OwnerReference" | "map[string]string" | "[]string" | "[]v1.OwnerReference" | "[]v1.ManagedFieldsEntry" | "v1.ObjectMeta" | "v1.Time";

const FIELDS: Record<string, GoType> = {
  name: "string",
  generateName: "string",
  namespace: "string",
  uid: "string",
  resourceVersion: "string",
  selfLink: "string",
  generation: "int64",
  deletionGracePeriodSeconds: "int64",
  creationTimestamp: "v1.Time",
  deletionTimestamp: "v1.Time",
  labels: "map[string]string",
  annotations: "map[string]string",
  finalizers: "[]string",
  ownerReferences: "[]v1.OwnerReference",
  managedFields: "[]v1.ManagedFieldsEntry",
};

function jsonType(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (typeof value === "boolean") return "bool";
  return typeof value;
}

function fits(value: unknown, type: GoType): boolean {
  switch (type) {
    case "string":
    case "v1.Time":
      return typeof value === "string";
    case "int64":
      return typeof value === "number" && Number.isInteger(value);
    case "map[string]string":
    case "v1.ObjectMeta":
    case "v1.OwnerReference":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    case "[]string":
    case "[]v1.OwnerReference":
    case "[]v1.ManagedFieldsEntry":
      return Array.isArray(value);
  }
}

function mismatch(value: unknown, path: string, type: GoType): ControlPlaneError {
  return new ControlPlaneError("BadRequest", `json: cannot unmarshal ${jsonType(value)} into Go struct field ${path} of type ${type}`);
}

/** Throws 400 when `metadata` or one of its fields has the wrong JSON type (`null` counts as absent). */
export function checkMetadataTypes(object: { metadata?: unknown }, kind: string): void {
  const metadata = object.metadata;
  if (metadata === undefined || metadata === null) return;
  if (!fits(metadata, "v1.ObjectMeta")) throw mismatch(metadata, `${kind}.metadata`, "v1.ObjectMeta");
  for (const [field, type] of Object.entries(FIELDS)) {
    const value = (metadata as Record<string, unknown>)[field];
    if (value === undefined || value === null) continue;
    if (!fits(value, type)) throw mismatch(value, `ObjectMeta.metadata.${field}`, type);
    if (type === "map[string]string") {
      for (const entry of Object.values(value as Record<string, unknown>)) {
        if (typeof entry !== "string" && entry !== null) throw mismatch(entry, `ObjectMeta.metadata.${field}`, "string");
      }
    }
    if (type === "[]string") {
      for (const entry of value as unknown[]) if (typeof entry !== "string") throw mismatch(entry, `ObjectMeta.metadata.${field}`, "string");
    }
    if (type === "[]v1.OwnerReference") {
      for (const entry of value as unknown[]) if (entry === null || typeof entry !== "object" || Array.isArray(entry)) throw mismatch(entry, `ObjectMeta.metadata.${field}`, "v1.OwnerReference");
    }
  }
}
