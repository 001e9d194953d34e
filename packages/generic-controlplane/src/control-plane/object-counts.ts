import type { ResourceDefinition } from "../registry/rest/resource-definition.js";
import { resourceKeys } from "../registry/keys.js";
import type { Storage } from "../storage/types.js";
import { groupResource } from "./served-resources.js";

/** How long flow control reuses a resource's object count (upstream refreshes its counts periodically). */
const COUNT_REUSE_MS = 10_000;

/** Every stored type's object count, for `apiserver_storage_objects`. */
export async function countStoredObjects(
  definitions: readonly ResourceDefinition[],
  storage: Storage,
): Promise<Array<{ resource: string; count: number }>> {
  const counts: Array<{ resource: string; count: number }> = [];
  for (const definition of definitions) {
    // A type stored as another resource (events.k8s.io events) is counted under that resource.
    if (definition.storedAs !== undefined) continue;
    counts.push({ resource: groupResource(definition), count: await storage.count(resourceKeys(definition).root) });
  }
  return counts;
}

/**
 * Object counts for flow control's work estimates, read at most every 10 s per resource; a type
 * stored as another counts that one's objects. Undefined for a resource that is not served.
 */
export function cachedObjectCounts(
  definitions: readonly ResourceDefinition[],
  storage: Storage,
): (group: string, resource: string) => Promise<number | undefined> {
  const counts = new Map<string, { count: Promise<number | undefined>; at: number }>();
  return (group, resource) => {
    const key = `${group}/${resource}`;
    const cached = counts.get(key);
    if (cached && Date.now() - cached.at < COUNT_REUSE_MS) return cached.count;
    const definition = definitions.find((d) => d.group === group && d.plural === resource);
    if (definition === undefined) return Promise.resolve(undefined);
    const where = definition.storedAs ?? definition;
    const count = storage.count(resourceKeys({ ...where, scope: definition.scope }).root).catch(() => undefined);
    counts.set(key, { count, at: Date.now() });
    return count;
  };
}
