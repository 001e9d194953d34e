import type { APIGroupList, APIResourceList, APIVersions } from "../discovery/types.js";
import type { KubeClient, ResourceRef } from "./client.js";

/** A served resource type with what discovery says about it. */
export interface DiscoveredResource extends ResourceRef {
  kind: string;
  verbs: string[];
}

/**
 * Some group versions could not be read (client-go's `ErrGroupDiscoveryFailed`). The resources of
 * the others are in `resources`: callers act on what they have, as upstream controllers do.
 */
export class GroupDiscoveryFailedError extends Error {
  constructor(
    readonly groups: ReadonlyMap<string, Error>,
    readonly resources: DiscoveredResource[],
  ) {
    const parts = [...groups].map(([gv, error]) => `${gv}: ${error.message}`).sort();
    super(`unable to retrieve the complete list of server APIs: ${parts.join(", ")}`);
    this.name = "GroupDiscoveryFailedError";
  }
}

/**
 * The served resources of each group's preferred version (client-go's
 * `ServerPreferredResources`), from `/api` and `/apis`; subresources are left out. Throws
 * `GroupDiscoveryFailedError` (carrying the rest) when some group versions fail.
 */
export async function discoverPreferredResources(client: KubeClient): Promise<DiscoveredResource[]> {
  const groupVersions: Array<{ group: string; version: string }> = [];
  const core = (await client.request("GET", "/api")) as APIVersions;
  for (const version of core.versions ?? []) groupVersions.push({ group: "", version });
  const groups = (await client.request("GET", "/apis")) as APIGroupList;
  for (const group of groups.groups ?? []) {
    const preferred = group.preferredVersion?.version ?? group.versions?.[0]?.version;
    if (preferred !== undefined) groupVersions.push({ group: group.name, version: preferred });
  }
  const failed = new Map<string, Error>();
  const resources: DiscoveredResource[] = [];
  await Promise.all(
    groupVersions.map(async ({ group, version }) => {
      const gv = group === "" ? version : `${group}/${version}`;
      try {
        const list = (await client.request("GET", group === "" ? `/api/${version}` : `/apis/${group}/${version}`)) as APIResourceList;
        for (const r of list.resources ?? []) {
          if (r.name.includes("/")) continue;
          resources.push({ group, version, resource: r.name, namespaced: r.namespaced, kind: r.kind, verbs: [...(r.verbs ?? [])] });
        }
      } catch (error) {
        failed.set(gv, error instanceof Error ? error : new Error(String(error)));
      }
    }),
  );
  resources.sort((a, b) => (a.group + "/" + a.resource).localeCompare(b.group + "/" + b.resource));
  if (failed.size > 0) throw new GroupDiscoveryFailedError(failed, resources);
  return resources;
}

/** Whether a resource serves every one of `verbs` (client-go's `SupportsAllVerbs`). */
export function supportsVerbs(resource: DiscoveredResource, ...verbs: string[]): boolean {
  return verbs.every((verb) => resource.verbs.includes(verb));
}

/** `group/version` of a resource, `version` for the core group (an `apiVersion`). */
export function apiVersionOf(ref: { group: string; version: string }): string {
  return ref.group === "" ? ref.version : `${ref.group}/${ref.version}`;
}

/** The `schema.GroupVersionResource` string form upstream messages use, e.g. `/v1, Resource=configmaps`. */
export function formatGroupVersionResource(ref: ResourceRef): string {
  return `${ref.group}/${ref.version}, Resource=${ref.resource}`;
}

/**
 * Maps `apiVersion`+`kind` to served resources (a REST mapper over discovery), refreshed on
 * demand so types added at run time are found.
 */
export class ResourceMapper {
  #byKind = new Map<string, DiscoveredResource>();
  #refreshing: Promise<void> | undefined;

  constructor(private readonly client: KubeClient) {}

  /** Replaces the mapping with `resources` (e.g. from a discovery the caller already ran). */
  set(resources: readonly DiscoveredResource[]): void {
    const next = new Map<string, DiscoveredResource>();
    for (const r of resources) next.set(`${apiVersionOf(r)}/${r.kind}`, r);
    this.#byKind = next;
  }

  async refresh(): Promise<void> {
    this.#refreshing ??= (async () => {
      try {
        this.set(await discoverPreferredResources(this.client));
      } catch (error) {
        if (!(error instanceof GroupDiscoveryFailedError)) throw error;
        this.set(error.resources);
      } finally {
        this.#refreshing = undefined;
      }
    })();
    return this.#refreshing;
  }

  /**
   * The resource serving `kind` in `apiVersion`. Discovery lists only preferred versions, so a
   * kind asked for in another version of the same group maps to that group's resource at the
   * requested version.
   */
  async lookup(apiVersion: string, kind: string): Promise<DiscoveredResource | undefined> {
    const found = this.#find(apiVersion, kind);
    if (found !== undefined) return found;
    await this.refresh();
    return this.#find(apiVersion, kind);
  }

  /** The served `resource` of `group` (its preferred version), refreshing discovery once when unknown. */
  async resource(group: string, resource: string): Promise<DiscoveredResource | undefined> {
    const find = () => [...this.#byKind.values()].find((r) => r.group === group && r.resource === resource);
    const found = find();
    if (found !== undefined) return found;
    await this.refresh();
    return find();
  }

  #find(apiVersion: string, kind: string): DiscoveredResource | undefined {
    const exact = this.#byKind.get(`${apiVersion}/${kind}`);
    if (exact !== undefined) return exact;
    const slash = apiVersion.lastIndexOf("/");
    const group = slash < 0 ? "" : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    for (const r of this.#byKind.values()) if (r.group === group && r.kind === kind) return { ...r, version };
    return undefined;
  }
}
