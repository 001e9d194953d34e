/**
 * The FieldsV1 codec shared by managedFields bookkeeping (plain writes) and server-side apply.
 * A field path is its segments joined by FIELD_PATH_SEPARATOR: plain field names, plus list
 * items kept in their FieldsV1 spelling (`k:{"name":"a"}` for map-list keys, `v:"x"` for set
 * values), so entries written by one survive a round trip through the other unchanged.
 */

export const FIELD_PATH_SEPARATOR = "\u0000";

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function isListItemSegment(segment: string): boolean {
  return segment.startsWith("k:") || segment.startsWith("v:");
}

/** FieldsV1 of leaf paths: plain segments as `f:`, list items as they are. */
export function toFieldsV1(paths: Iterable<string>): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const path of paths) {
    let node = root;
    const segments = path.split(FIELD_PATH_SEPARATOR);
    segments.forEach((segment, i) => {
      const key = isListItemSegment(segment) ? segment : `f:${segment}`;
      let child = node[key] as Record<string, unknown> | undefined;
      if (child === undefined) {
        child = {};
        node[key] = child;
      }
      // Nested maps are marked as owned themselves, except the metadata struct.
      if (i < segments.length - 1 && !(i === 0 && segment === "metadata")) child["."] = {};
      node = child;
    });
  }
  return root;
}

/** Leaf paths of a FieldsV1 set (`f:` stripped, `k:`/`v:` kept). */
export function fromFieldsV1(fields: unknown): Set<string> {
  const out = new Set<string>();
  const walk = (node: unknown, path: string[]): void => {
    if (!isRecord(node)) return;
    const children = Object.keys(node).filter((k) => k !== ".");
    if (children.length === 0 && path.length > 0) {
      out.add(path.join(FIELD_PATH_SEPARATOR));
      return;
    }
    for (const key of children) walk(node[key], [...path, key.startsWith("f:") ? key.slice(2) : key]);
  };
  walk(fields, []);
  return out;
}
