import { createHash } from "node:crypto";
import type { ResourceDefinition } from "../registry/rest/resource-definition.js";
import type {
  APIGroup,
  APIGroupDiscovery,
  APIGroupDiscoveryList,
  APIGroupList,
  APIResource,
  APIResourceDiscovery,
  APIResourceList,
  APISubresourceDiscovery,
  APIVersions,
  GroupVersionForDiscovery,
  ServerAddressByClientCIDR,
} from "./types.js";
import { compareKubeVersions } from "./versions.js";

/** A subresource served next to a resource, e.g. `status` or the namespaces' `finalize`. */
export interface SubresourceSpec {
  name: string;
  verbs: string[];
  /** The kind it speaks when not the resource's own. */
  kind?: { group: string; version: string; kind: string };
}

export interface DiscoveryOptions {
  /** `serverAddressByClientCIDRs` of `/api`; defaults to `0.0.0.0/0` → `serverAddress` when that is given, else none. */
  serverAddress?: string;
  /** Subresources beyond `status` (from `statusSubresource`) and core `namespaces/finalize`, keyed by `<plural>` or `<plural>.<group>`. */
  subresources?: Record<string, SubresourceSpec[]>;
}

const STANDARD_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];
const STATUS: SubresourceSpec = { name: "status", verbs: ["get", "patch", "update"] };
const FINALIZE: SubresourceSpec = { name: "finalize", verbs: ["update"] };

/**
 * `storageVersionHash`: the first 8 bytes of sha256("<group>/<version>/<kind>"), base64, as
 * kube-apiserver computes it (core ConfigMap → `qFsyl6wFWjQ=`). Clients use it to notice storage
 * version changes.
 */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash("sha256").update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString("base64");
}

function groupVersion(group: string, version: string): string {
  return group === "" ? version : `${group}/${version}`;
}

function resourceKey(definition: ResourceDefinition): string {
  return definition.group === "" ? definition.plural : `${definition.plural}.${definition.group}`;
}

/** The verbs of the main resource: the standard set (namespaces have no deletecollection upstream) plus extras. */
export function resourceVerbs(definition: ResourceDefinition): string[] {
  if (definition.restVerbs !== undefined) return [...definition.restVerbs].sort();
  const standard =
    definition.group === "" && definition.plural === "namespaces" ? STANDARD_VERBS.filter((v) => v !== "deletecollection") : STANDARD_VERBS;
  const extra = (definition.verbs ?? []).filter((v) => !standard.includes(v) && v !== "finalize");
  return [...standard, ...extra].sort();
}

/** The subresources a definition serves, sorted by name. */
export function subresourcesOf(definition: ResourceDefinition, options: DiscoveryOptions = {}): SubresourceSpec[] {
  const out: SubresourceSpec[] = [];
  if (definition.statusSubresource === true) out.push(STATUS);
  if (definition.group === "" && definition.plural === "namespaces") out.push(FINALIZE);
  for (const extra of [...(definition.subresources ?? []), ...(options.subresources?.[resourceKey(definition)] ?? [])]) {
    if (!out.some((s) => s.name === extra.name)) out.push(extra);
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

interface GroupEntry {
  name: string;
  /** Versions in preference order. */
  versions: string[];
}

/** Served groups in first-seen order, their versions in kube priority order. */
function groupsOf(definitions: readonly ResourceDefinition[]): GroupEntry[] {
  const groups = new Map<string, Set<string>>();
  for (const d of definitions) {
    let versions = groups.get(d.group);
    if (versions === undefined) groups.set(d.group, (versions = new Set()));
    versions.add(d.version);
  }
  return [...groups].map(([name, versions]) => ({ name, versions: [...versions].sort(compareKubeVersions) }));
}

function forDiscovery(group: string, version: string): GroupVersionForDiscovery {
  return { groupVersion: groupVersion(group, version), version };
}

/** `GET /api`. */
export function buildAPIVersions(definitions: readonly ResourceDefinition[], options: DiscoveryOptions = {}): APIVersions {
  const core = groupsOf(definitions).find((g) => g.name === "");
  const cidrs: ServerAddressByClientCIDR[] =
    options.serverAddress === undefined ? [] : [{ clientCIDR: "0.0.0.0/0", serverAddress: options.serverAddress }];
  return { kind: "APIVersions", versions: core?.versions ?? [], serverAddressByClientCIDRs: cidrs };
}

/** `GET /apis/<group>`, or undefined for a group that is not served (or the core group). */
export function buildAPIGroup(definitions: readonly ResourceDefinition[], group: string): APIGroup | undefined {
  const entry = groupsOf(definitions).find((g) => g.name === group && g.name !== "");
  if (entry === undefined) return undefined;
  return { kind: "APIGroup", apiVersion: "v1", ...groupBody(entry) };
}

function groupBody(entry: GroupEntry): Omit<APIGroup, "kind" | "apiVersion"> {
  const versions = entry.versions.map((v) => forDiscovery(entry.name, v));
  return { name: entry.name, versions, preferredVersion: versions[0] as GroupVersionForDiscovery };
}

/** `GET /apis`: every named group with its preferred version. */
export function buildAPIGroupList(definitions: readonly ResourceDefinition[]): APIGroupList {
  return {
    kind: "APIGroupList",
    apiVersion: "v1",
    groups: groupsOf(definitions)
      .filter((g) => g.name !== "")
      .map(groupBody),
  };
}

/** `GET /api/v1` or `/apis/<group>/<version>`, or undefined when nothing is served there. */
export function buildAPIResourceList(
  definitions: readonly ResourceDefinition[],
  group: string,
  version: string,
  options: DiscoveryOptions = {},
): APIResourceList | undefined {
  const served = definitions.filter((d) => d.group === group && d.version === version);
  if (served.length === 0) return undefined;
  const resources: APIResource[] = [];
  for (const d of served) {
    const resource: APIResource = {
      name: d.plural,
      singularName: d.singular,
      namespaced: d.scope === "Namespaced",
      kind: d.kind,
      verbs: resourceVerbs(d),
    };
    if (d.shortNames !== undefined && d.shortNames.length > 0) resource.shortNames = [...d.shortNames];
    if (d.categories !== undefined && d.categories.length > 0) resource.categories = [...d.categories];
    if (d.restVerbs === undefined) resource.storageVersionHash = storageVersionHash(d.group, d.version, d.kind);
    resources.push(resource);
    for (const sub of subresourcesOf(d, options)) {
      const speaks = sub.kind === undefined ? {} : { group: sub.kind.group, version: sub.kind.version };
      resources.push({
        name: `${d.plural}/${sub.name}`,
        singularName: "",
        namespaced: d.scope === "Namespaced",
        ...speaks,
        kind: sub.kind?.kind ?? d.kind,
        verbs: [...sub.verbs],
      });
    }
  }
  const list: APIResourceList = { kind: "APIResourceList", groupVersion: groupVersion(group, version), resources };
  return group === "" ? list : { kind: "APIResourceList", apiVersion: "v1", groupVersion: list.groupVersion, resources };
}

function resourceDiscovery(d: ResourceDefinition, options: DiscoveryOptions): APIResourceDiscovery {
  const responseKind = { group: d.group, version: d.version, kind: d.kind };
  const entry: APIResourceDiscovery = {
    resource: d.plural,
    responseKind,
    scope: d.scope,
    singularResource: d.singular,
    verbs: resourceVerbs(d),
  };
  if (d.shortNames !== undefined && d.shortNames.length > 0) entry.shortNames = [...d.shortNames];
  if (d.categories !== undefined && d.categories.length > 0) entry.categories = [...d.categories];
  const subresources: APISubresourceDiscovery[] = subresourcesOf(d, options).map((s) => ({
    subresource: s.name,
    responseKind: s.kind !== undefined ? { ...s.kind } : { ...responseKind },
    verbs: [...s.verbs],
  }));
  if (subresources.length > 0) entry.subresources = subresources;
  return entry;
}

/**
 * Aggregated discovery (`APIGroupDiscoveryList`, GA in 1.30): `/api` holds the core group (with an
 * empty name), `/apis` every named group, versions in preference order.
 */
export function buildAggregatedDiscovery(
  definitions: readonly ResourceDefinition[],
  prefix: "api" | "apis",
  version: "v2" | "v2beta1" = "v2",
  options: DiscoveryOptions = {},
): APIGroupDiscoveryList {
  const items: APIGroupDiscovery[] = groupsOf(definitions)
    .filter((g) => (prefix === "api" ? g.name === "" : g.name !== ""))
    .map((g) => ({
      metadata: g.name === "" ? { creationTimestamp: null } : { name: g.name, creationTimestamp: null },
      versions: g.versions.map((v) => ({
        version: v,
        resources: definitions.filter((d) => d.group === g.name && d.version === v).map((d) => resourceDiscovery(d, options)),
        freshness: "Current" as const,
      })),
    }));
  return { kind: "APIGroupDiscoveryList", apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {}, items };
}

/** All discovery documents for a fixed set of served resources, built once. */
export interface DiscoveryDocuments {
  legacyVersions(): APIVersions;
  groupList(): APIGroupList;
  group(name: string): APIGroup | undefined;
  resourceList(group: string, version: string): APIResourceList | undefined;
  aggregated(prefix: "api" | "apis", version: "v2" | "v2beta1"): APIGroupDiscoveryList;
}

/** The discovery documents of `definitions`, memoised: serve them as often as clients ask. */
export function createDiscoveryDocuments(definitions: readonly ResourceDefinition[], options: DiscoveryOptions = {}): DiscoveryDocuments {
  const snapshot = [...definitions];
  const memo = new Map<string, unknown>();
  const once = <T>(key: string, build: () => T): T => {
    if (!memo.has(key)) memo.set(key, build());
    return memo.get(key) as T;
  };
  return {
    legacyVersions: () => once("api", () => buildAPIVersions(snapshot, options)),
    groupList: () => once("apis", () => buildAPIGroupList(snapshot)),
    group: (name) => once(`group:${name}`, () => buildAPIGroup(snapshot, name)),
    resourceList: (group, version) => once(`gv:${group}/${version}`, () => buildAPIResourceList(snapshot, group, version, options)),
    aggregated: (prefix, version) => once(`agg:${prefix}:${version}`, () => buildAggregatedDiscovery(snapshot, prefix, version, options)),
  };
}
