import { isDeepStrictEqual } from "node:util";
import type { SwaggerDocument } from "../openapi/v2.js";
import { cloneJson } from "../patch/json-value.js";

const DEFINITION_PREFIX = "#/definitions/";

/**
 * `source`'s paths and definitions added to `dest`, as kube-aggregator merges an extension
 * server's `/openapi/v2` into its own (kube-openapi's `MergeSpecsIgnorePathConflict...`):
 *   - paths `dest` already has stay `dest`'s, and the source's definitions only those paths used
 *     are dropped with them;
 *   - a definition both have with the same schema is kept once; one whose schema differs is
 *     added as `<name>_v2` (`_v3`, ...) with the source's references renamed.
 * Neither document is changed; the result shares no objects with `source`.
 */
export function mergeSwagger(dest: SwaggerDocument, source: SwaggerDocument): SwaggerDocument {
  const keep = Object.keys(source.paths ?? {}).filter((path) => !(path in dest.paths));
  if (keep.length === 0) return dest;
  const filtered = keepPaths(cloneJson(source), keep);
  const used = new Set(Object.keys(dest.definitions));
  const renames = new Map<string, string>();
  for (const [name, schema] of Object.entries(filtered.definitions)) {
    if (!used.has(name)) {
      used.add(name);
      continue;
    }
    if (name in dest.definitions && isDeepStrictEqual(schema, dest.definitions[name])) continue;
    let i = 2;
    while (used.has(`${name}_v${i}`) || `${name}_v${i}` in filtered.definitions) i++;
    renames.set(name, `${name}_v${i}`);
    used.add(`${name}_v${i}`);
  }
  if (renames.size > 0) renameDefinitions(filtered, renames);
  const definitions = { ...dest.definitions };
  for (const [name, schema] of Object.entries(filtered.definitions)) if (!(name in definitions)) definitions[name] = schema;
  return { ...dest, paths: { ...dest.paths, ...filtered.paths }, definitions };
}

/** Only `paths`, and the definitions they use (directly or through other definitions). */
function keepPaths(document: SwaggerDocument, paths: readonly string[]): SwaggerDocument {
  const kept: SwaggerDocument["paths"] = {};
  for (const path of paths) kept[path] = document.paths[path]!;
  const definitions = document.definitions ?? {};
  const reachable = new Set<string>();
  const pending: string[] = [];
  const note = (name: string) => {
    if (!reachable.has(name) && name in definitions) {
      reachable.add(name);
      pending.push(name);
    }
  };
  forEachRef(kept, (ref) => (ref.startsWith(DEFINITION_PREFIX) ? note(ref.slice(DEFINITION_PREFIX.length)) : undefined));
  while (pending.length > 0)
    forEachRef(definitions[pending.pop()!], (ref) =>
      ref.startsWith(DEFINITION_PREFIX) ? note(ref.slice(DEFINITION_PREFIX.length)) : undefined,
    );
  return { ...document, paths: kept, definitions: Object.fromEntries(Object.entries(definitions).filter(([name]) => reachable.has(name))) };
}

function renameDefinitions(document: SwaggerDocument, renames: ReadonlyMap<string, string>): void {
  const rewrite = (value: unknown): void => {
    if (Array.isArray(value)) {
      value.forEach(rewrite);
    } else if (value !== null && typeof value === "object") {
      const record = value as Record<string, unknown>;
      const ref = record.$ref;
      if (typeof ref === "string" && ref.startsWith(DEFINITION_PREFIX)) {
        const renamed = renames.get(ref.slice(DEFINITION_PREFIX.length));
        if (renamed !== undefined) record.$ref = `${DEFINITION_PREFIX}${renamed}`;
      }
      for (const [key, child] of Object.entries(record)) if (key !== "$ref") rewrite(child);
    }
  };
  rewrite(document.paths);
  rewrite(document.definitions);
  document.definitions = Object.fromEntries(
    Object.entries(document.definitions).map(([name, schema]) => [renames.get(name) ?? name, schema]),
  );
}

function forEachRef(value: unknown, visit: (ref: string) => void): void {
  if (Array.isArray(value)) {
    for (const item of value) forEachRef(item, visit);
  } else if (value !== null && typeof value === "object") {
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      if (key === "$ref" && typeof child === "string") visit(child);
      else forEachRef(child, visit);
    }
  }
}
