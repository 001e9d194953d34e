import type { KubeObject } from "../../api/types.js";

/**
 * apimachinery's `GroupVersionKind.String()` of an object, as conversion errors print it:
 * `stable.example.com/v1, Kind=Foo` (`/v1, Kind=Pod` in the core group).
 */
export function gvkText(object: Pick<KubeObject, "apiVersion" | "kind">): string {
  const apiVersion = typeof object.apiVersion === "string" ? object.apiVersion : "";
  const slash = apiVersion.indexOf("/");
  const group = slash < 0 ? "" : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  return `${group}/${version}, Kind=${typeof object.kind === "string" ? object.kind : ""}`;
}

/** Go's `%T` of a value decoded from JSON into `interface{}` (unstructured objects keep integers as int64). */
export function goTypeName(value: unknown): string {
  if (value === null || value === undefined) return "<nil>";
  if (typeof value === "string") return "string";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int64" : "float64";
  if (Array.isArray(value)) return "[]interface {}";
  return "map[string]interface {}";
}
