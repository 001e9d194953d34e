import type { StatusCause } from "../api/types.js";
import { applyConflict } from "../api/errors/index.js";
import type { ControlPlaneError } from "../api/errors/control-plane-error.js";
import { printPath, sortPaths, type FieldPath } from "./fields-v1.js";
import type { ManagerEntry } from "./managed-fields.js";

/** One field another manager owns that an apply would change. */
export interface Conflict {
  /** The manager's identifier (see managerIdentifier), which orders the message. */
  id: string;
  manager: ManagerEntry;
  path: FieldPath;
}

/** `"kubectl" using v1`, `"x" with subresource "status"`: how upstream's `printManager` names a manager. */
function printManager(entry: ManagerEntry): string {
  let out = JSON.stringify(entry.manager);
  if (entry.subresource !== "") out += ` with subresource ${JSON.stringify(entry.subresource)}`;
  if (entry.operation === "Update") out += ` using ${entry.apiVersion}`;
  return out;
}

/** The 409 of an apply that conflicts, worded like apimachinery's `NewConflictError`. */
export function conflictError(conflicts: Conflict[]): ControlPlaneError {
  const byManager = new Map<string, Conflict[]>();
  for (const conflict of conflicts) byManager.set(conflict.id, [...(byManager.get(conflict.id) ?? []), conflict]);
  const ordered: Conflict[] = [];
  for (const id of [...byManager.keys()].sort()) {
    const group = byManager.get(id) as Conflict[];
    const paths = sortPaths(group.map((c) => c.path));
    for (const path of paths) ordered.push(group.find((c) => c.path === path) as Conflict);
  }
  const causes: StatusCause[] = ordered.map((c) => ({
    reason: "FieldManagerConflict",
    message: `conflict with ${printManager(c.manager)}`,
    field: printPath(c.path),
  }));
  let message: string;
  if (ordered.length === 1) {
    const only = ordered[0] as Conflict;
    message = `Apply failed with 1 conflict: conflict with ${printManager(only.manager)}: ${printPath(only.path)}`;
  } else {
    const lines: string[] = [];
    for (const id of [...byManager.keys()].sort()) {
      const group = ordered.filter((c) => c.id === id);
      lines.push(`conflicts with ${printManager((group[0] as Conflict).manager)}:`);
      for (const c of group) lines.push(`- ${printPath(c.path)}`);
    }
    message = `Apply failed with ${ordered.length} conflicts: ${lines.join("\n")}`;
  }
  return applyConflict(causes, message);
}
