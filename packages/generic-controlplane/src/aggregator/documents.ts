import type { DiscoveryDocuments } from "../discovery/discovery.js";
import type {
  APIGroupDiscovery,
  APIGroupDiscoveryList,
  APIGroupList,
  APIResourceDiscovery,
  APISubresourceDiscovery,
} from "../discovery/types.js";
import type { OpenApiDocuments } from "../openapi/documents.js";
import type { SwaggerDocument } from "../openapi/v2.js";
import { encodeGnosticDocument } from "../openapi/v2-protobuf.js";
import { mergeSwagger } from "./openapi-v2.js";
import type { RemoteGroupVersion } from "./availability.js";

interface RemoteResource {
  name?: string;
  singularName?: string;
  namespaced?: boolean;
  group?: string;
  version?: string;
  kind?: string;
  verbs?: string[];
  shortNames?: string[];
  categories?: string[];
}

/** Remote group versions by group, groups by groupPriorityMinimum and versions by versionPriority (highest first), as the aggregator orders them. */
function remoteGroups(remotes: readonly RemoteGroupVersion[]): Array<{ name: string; versions: RemoteGroupVersion[] }> {
  const groups = new Map<string, RemoteGroupVersion[]>();
  for (const remote of remotes) {
    if (!remote.available || remote.group === "") continue;
    groups.set(remote.group, [...(groups.get(remote.group) ?? []), remote]);
  }
  const priority = (versions: RemoteGroupVersion[]) => Math.max(...versions.map((v) => v.groupPriorityMinimum));
  return [...groups.entries()]
    .map(([name, versions]) => ({
      name,
      versions: versions.sort((a, b) => b.versionPriority - a.versionPriority || (a.version < b.version ? -1 : 1)),
    }))
    .sort((a, b) => priority(b.versions) - priority(a.versions) || (a.name < b.name ? -1 : 1));
}

const forDiscovery = (group: string, version: string) => ({ groupVersion: `${group}/${version}`, version });

/** An APIResourceList of an extension server in the aggregated form (upstream converts legacy discovery the same way). */
function aggregatedVersion(remote: RemoteGroupVersion) {
  const entries = (remote.resources?.resources ?? []) as RemoteResource[];
  const resources: APIResourceDiscovery[] = [];
  for (const entry of entries) {
    const [resource, subresource] = (entry.name ?? "").split("/", 2);
    if (resource === undefined || resource === "") continue;
    const responseKind = { group: entry.group ?? remote.group, version: entry.version ?? remote.version, kind: entry.kind ?? "" };
    if (subresource === undefined) {
      const discovered: APIResourceDiscovery = {
        resource,
        responseKind,
        scope: entry.namespaced === true ? "Namespaced" : "Cluster",
        singularResource: entry.singularName ?? "",
        verbs: [...(entry.verbs ?? [])],
      };
      if (entry.shortNames?.length) discovered.shortNames = [...entry.shortNames];
      if (entry.categories?.length) discovered.categories = [...entry.categories];
      resources.push(discovered);
      continue;
    }
    const parent = resources.find((r) => r.resource === resource);
    const sub: APISubresourceDiscovery = { subresource, responseKind, verbs: [...(entry.verbs ?? [])] };
    if (parent !== undefined) (parent.subresources ??= []).push(sub);
  }
  return { version: remote.version, resources, freshness: "Current" as const };
}

/**
 * The server's discovery documents with the extension servers' group versions merged in (kube-
 * aggregator's `/apis` and aggregated discovery): local groups first, then remote ones by priority.
 * `/apis/<group>/<version>` of a remote group version never gets here: it is proxied.
 */
export function mergedDiscovery(local: DiscoveryDocuments, remotes: readonly RemoteGroupVersion[]): DiscoveryDocuments {
  const groups = remoteGroups(remotes);
  return {
    legacyVersions: () => local.legacyVersions(),
    resourceList: (group, version) => local.resourceList(group, version),
    groupList(): APIGroupList {
      const list = local.groupList();
      const merged = list.groups.map((g) => ({ ...g, versions: [...g.versions] }));
      for (const remote of groups) {
        const existing = merged.find((g) => g.name === remote.name);
        const versions = remote.versions.map((v) => forDiscovery(remote.name, v.version));
        if (existing !== undefined)
          existing.versions.push(...versions.filter((v) => !existing.versions.some((e) => e.version === v.version)));
        else merged.push({ name: remote.name, versions, preferredVersion: versions[0] as { groupVersion: string; version: string } });
      }
      return { ...list, groups: merged };
    },
    group(name) {
      const found = this.groupList().groups.find((g) => g.name === name);
      return found === undefined ? undefined : { kind: "APIGroup", apiVersion: "v1", ...found };
    },
    aggregated(prefix, version): APIGroupDiscoveryList {
      const list = local.aggregated(prefix, version);
      if (prefix === "api") return list;
      const items: APIGroupDiscovery[] = list.items.map((item) => ({ ...item, versions: [...item.versions] }));
      for (const remote of groups) {
        const versions = remote.versions.map(aggregatedVersion);
        const existing = items.find((item) => item.metadata.name === remote.name);
        if (existing !== undefined)
          existing.versions.push(...versions.filter((v) => !existing.versions.some((e) => e.version === v.version)));
        else items.push({ metadata: { name: remote.name, creationTimestamp: null }, versions });
      }
      return { ...list, items };
    },
  };
}

/**
 * The OpenAPI v3 index and documents with each available extension server's group version document
 * added, and `/openapi/v2` with their v2 documents merged in (paths and definitions, see
 * mergeSwagger), extension servers in the order discovery lists their groups.
 */
export function mergedOpenApi(local: OpenApiDocuments, remotes: readonly RemoteGroupVersion[]): OpenApiDocuments {
  const documents = new Map<string, { json: string; hash: string }>();
  for (const remote of remotes)
    if (remote.available && remote.openapi !== undefined) documents.set(`apis/${remote.group}/${remote.version}`, remote.openapi);
  const swaggers = remoteGroups(remotes).flatMap((group) =>
    group.versions.flatMap((v) => (v.openapiV2 === undefined ? [] : [v.openapiV2.document])),
  );
  let merged: SwaggerDocument | undefined;
  let json: string | undefined;
  let protobuf: Uint8Array | undefined;
  const swagger = () => (merged ??= swaggers.reduce(mergeSwagger, JSON.parse(local.v2Json()) as SwaggerDocument));
  return {
    v3Index() {
      const index = local.v3Index();
      const paths = { ...index.paths };
      for (const [path, doc] of documents) paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${doc.hash}` };
      return { ...index, paths };
    },
    v3Document: (path) => documents.get(path.replace(/^\/+|\/+$/g, "")) ?? local.v3Document(path),
    v2Protobuf: () => (swaggers.length === 0 ? local.v2Protobuf() : (protobuf ??= encodeGnosticDocument(swagger()))),
    v2Json: () => (swaggers.length === 0 ? local.v2Json() : (json ??= JSON.stringify(swagger()))),
  };
}
