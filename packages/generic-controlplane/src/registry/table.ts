import { humanDuration, timestampSince } from "../api/human-duration.js";
import type { KubeObject, ListMeta, Table, TableColumnDefinition, TableRow } from "../api/types.js";
import type { PrinterColumn, ResourceDefinition } from "./rest/resource-definition.js";

/**
 * The `meta.k8s.io/v1` Table form of objects (`kubectl get`), like kube-apiserver's table
 * convertors: a Name column (`format: name`), the type's printer columns (or Age), and per row the
 * object as `PartialObjectMetadata` (kubectl reads the namespace for `-A` and labels for
 * `--show-labels` from it). `date` cells are sent as ages (`5m`, `3d2h`) the way built-in printers do.
 */

export type IncludeObject = "None" | "Metadata" | "Object";

export interface TableOptions {
  /** What each row carries besides its cells; `Metadata` (the default) sends PartialObjectMetadata. */
  includeObject?: IncludeObject;
  /** `false` leaves out columns with priority > 0; by default all are sent and clients choose (`-o wide`). */
  wide?: boolean;
  /** List metadata (resourceVersion, continue, remainingItemCount) of the table. */
  listMeta?: ListMeta;
  /** Reference time for ages. */
  now?: Date;
}

const NAME_DESCRIPTION =
  "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
const AGE_DESCRIPTION =
  "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

const NAME_COLUMN: PrinterColumn = {
  name: "Name",
  type: "string",
  format: "name",
  description: NAME_DESCRIPTION,
  priority: 0,
  cell: (o) => o.metadata?.name ?? "",
};
const AGE_COLUMN: PrinterColumn = {
  name: "Age",
  type: "date",
  description: AGE_DESCRIPTION,
  priority: 0,
  cell: (o) => o.metadata?.creationTimestamp,
};

/** The columns of a type's table: Name first unless a printer column is the name column. */
export function tableColumns(definition: Pick<ResourceDefinition, "printerColumns">): PrinterColumn[] {
  const custom = definition.printerColumns ?? [];
  if (custom.length === 0) return [NAME_COLUMN, AGE_COLUMN];
  return custom.some((c) => c.format === "name") ? custom : [NAME_COLUMN, ...custom];
}

export function toTable(
  definition: Pick<ResourceDefinition, "printerColumns">,
  objects: KubeObject | readonly KubeObject[],
  options: TableOptions = {},
): Table {
  const list: readonly KubeObject[] = Array.isArray(objects) ? (objects as readonly KubeObject[]) : [objects as KubeObject];
  const now = options.now ?? new Date();
  const includeObject = options.includeObject ?? "Metadata";
  const columns = tableColumns(definition).filter((c) => options.wide !== false || (c.priority ?? 0) === 0);
  const columnDefinitions: TableColumnDefinition[] = columns.map((c) => ({
    name: c.name,
    // Dates leave as ages, so every client shows them the same way.
    type: c.type === "date" ? "string" : c.type,
    format: c.format ?? "",
    description: c.description ?? "",
    priority: c.priority ?? 0,
  }));
  const rows = list.map((object): TableRow => {
    const row: TableRow = { cells: columns.map((c) => cellValue(c, object, now)) };
    if (includeObject === "Object") row.object = object;
    else if (includeObject === "Metadata")
      row.object = { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: object.metadata ?? {} };
    return row;
  });
  let metadata: ListMeta = {};
  if (options.listMeta !== undefined) metadata = { ...options.listMeta };
  else if (!Array.isArray(objects) && list[0]?.metadata?.resourceVersion !== undefined)
    metadata = { resourceVersion: list[0].metadata.resourceVersion };
  return { kind: "Table", apiVersion: "meta.k8s.io/v1", metadata, columnDefinitions, rows };
}

function cellValue(column: PrinterColumn, object: KubeObject, now: Date): unknown {
  let value: unknown;
  try {
    value = column.cell(object);
  } catch {
    return null;
  }
  if (column.type === "date") return typeof value === "string" && value !== "" ? translateTimestampSince(value, now) : "<unknown>";
  return value ?? null;
}

/** kubectl's age of a timestamp. */
export function translateTimestampSince(timestamp: string, now: Date = new Date()): string {
  return timestampSince(timestamp, now.getTime());
}
export { humanDuration };
