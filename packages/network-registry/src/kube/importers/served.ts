import { isNotFound, type KubeClient, type ResourceRef } from "@kubekit/generic-controlplane/controllers";

interface APIResourceList {
  resources?: { name: string; namespaced: boolean; verbs?: string[] }[];
}

interface APIGroup {
  versions?: { version: string }[];
  preferredVersion?: { version: string };
}

/**
 * The version of `group` that serves `resource` with `list`, as discovery tells: the group's
 * preferred version first, then the others in the server's order. `undefined` when the server
 * does not serve it (a group or version that is not there answers 404).
 */
export async function servedResource(client: KubeClient, group: string, resource: string): Promise<ResourceRef | undefined> {
  let versions: string[];
  if (group === "") {
    versions = ["v1"];
  } else {
    let info: APIGroup;
    try {
      info = (await client.request("GET", `/apis/${group}`)) as APIGroup;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
    const preferred = info.preferredVersion?.version;
    const all = (info.versions ?? []).map((v) => v.version);
    versions = preferred === undefined ? all : [preferred, ...all.filter((v) => v !== preferred)];
  }
  for (const version of versions) {
    let list: APIResourceList;
    try {
      list = (await client.request("GET", group === "" ? `/api/${version}` : `/apis/${group}/${version}`)) as APIResourceList;
    } catch (error) {
      if (isNotFound(error)) continue;
      throw error;
    }
    const found = list.resources?.find((r) => r.name === resource);
    if (found !== undefined && (found.verbs ?? []).includes("list")) return { group, version, resource, namespaced: found.namespaced };
  }
  return undefined;
}

/** Every object of a collection, read in pages (`limit`/`continue`) as kubectl does. */
export async function listAll<T>(client: KubeClient, ref: ResourceRef, pageSize = 500): Promise<T[]> {
  const items: T[] = [];
  let continueToken: string | undefined;
  do {
    const page = await client.list(ref, undefined, {
      limit: pageSize,
      ...(continueToken !== undefined ? { continue: continueToken } : {}),
    });
    items.push(...(page.items as unknown as T[]));
    continueToken = page.metadata?.continue || undefined;
  } while (continueToken !== undefined);
  return items;
}
