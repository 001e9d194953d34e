import type { KubeObject } from "@kubekit/generic-controlplane";
import { translateTimestampSince, type PrinterColumn } from "@kubekit/generic-controlplane/registry";

/** kubectl's AGE column. */
export function ageColumn<T extends KubeObject>(): PrinterColumn<T> {
  return {
    name: "Age",
    type: "string",
    description: "CreationTimestamp is a timestamp representing the server time when this object was created.",
    cell: (object) => (object.metadata?.creationTimestamp ? translateTimestampSince(object.metadata.creationTimestamp) : "<unknown>"),
  };
}

/** Upstream's `<none>` for an empty cell. */
export function orNone(value: string | undefined): string {
  return value === undefined || value === "" ? "<none>" : value;
}
