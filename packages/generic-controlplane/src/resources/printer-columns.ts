import type { KubeObject } from "../api/types.js";
import type { PrinterColumn } from "../registry/rest/resource-definition.js";

/** The AGE column every upstream printer ends with (a `date` cell shown as an age). */
export function ageColumn<T extends KubeObject>(): PrinterColumn<T> {
  return {
    name: "Age",
    type: "date",
    description: "CreationTimestamp is a timestamp representing the server time when this object was created, in UTC.",
    cell: (object) => object.metadata?.creationTimestamp,
  };
}
