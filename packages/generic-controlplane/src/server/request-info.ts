/**
 * Splits an API path into the parts kube-apiserver's RequestInfoFactory extracts: group, version,
 * namespace, resource, name, subresource and verb. Non-resource paths (`/version`, `/healthz` …)
 * come back with `isResourceRequest: false`.
 */
export type Verb = "get" | "list" | "watch" | "create" | "update" | "patch" | "delete" | "deletecollection";

export interface ResourceRequestInfo {
  isResourceRequest: true;
  verb: Verb;
  /** `/api` or `/apis`. */
  apiPrefix: "api" | "apis";
  group: string;
  version: string;
  namespace: string | undefined;
  resource: string;
  name: string;
  subresource: string;
  /** Reached through the legacy `/watch/` path prefix. */
  legacyWatch: boolean;
}

export interface NonResourceRequestInfo {
  isResourceRequest: false;
  path: string;
  /** Parts of an `/api` or `/apis` path that stop before a resource (discovery). */
  segments: string[];
}

export type RequestInfo = ResourceRequestInfo | NonResourceRequestInfo;

/** Subresources of a namespace object; `/namespaces/<n>/<x>` with any other `x` is a namespaced resource. */
const NAMESPACE_SUBRESOURCES = new Set(["status", "finalize"]);

export function parseRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const segments = splitPath(path);
  const head = segments[0];
  let rest: string[];
  let group: string;
  let version: string;
  if (head === "api" && segments.length >= 3) {
    group = "";
    version = segments[1] as string;
    rest = segments.slice(2);
  } else if (head === "apis" && segments.length >= 4) {
    group = segments[1] as string;
    version = segments[2] as string;
    rest = segments.slice(3);
  } else {
    return { isResourceRequest: false, path, segments };
  }

  let legacyWatch = false;
  if (rest[0] === "watch") {
    legacyWatch = true;
    rest = rest.slice(1);
    if (rest.length === 0) return { isResourceRequest: false, path, segments };
  }

  let namespace: string | undefined;
  if (rest[0] === "namespaces" && rest.length >= 2) {
    const named = rest[1] ?? "";
    namespace = named;
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2] as string)) {
      rest = rest.slice(2);
    } else {
      // `/namespaces/<n>` and `/namespaces/<n>/status|finalize` address the namespace object itself.
      rest = ["namespaces", named, ...rest.slice(2)];
      namespace = undefined;
    }
  }
  const resource = rest[0] as string;
  const name = rest[1] ?? "";
  const subresource = rest[2] ?? "";
  // Only a proxy subresource has a path of its own after it (`pods/p:8080/proxy/healthz`), which
  // the proxy forwards; upstream's parts beyond the subresource mean nothing to any other.
  if (rest.length > 3 && subresource !== "proxy") return { isResourceRequest: false, path, segments };

  const verb = verbFor(method, name, legacyWatch || isTrue(query.get("watch")));
  if (verb === undefined) return { isResourceRequest: false, path, segments };
  return {
    isResourceRequest: true,
    verb,
    apiPrefix: head,
    group,
    version,
    namespace,
    resource,
    name,
    subresource,
    legacyWatch,
  };
}

function verbFor(method: string, name: string, watch: boolean): Verb | undefined {
  switch (method) {
    case "GET":
    case "HEAD":
      if (watch) return "watch";
      return name === "" ? "list" : "get";
    case "POST":
      return "create";
    case "PUT":
      return "update";
    case "PATCH":
      return "patch";
    case "DELETE":
      return name === "" ? "deletecollection" : "delete";
    default:
      return undefined;
  }
}

/** Go's strconv.ParseBool spellings, which is what kube-apiserver accepts for `watch`. */
export function isTrue(value: string | null): boolean {
  return value === "true" || value === "1" || value === "True" || value === "TRUE" || value === "t" || value === "T";
}

/** Go's strconv.ParseBool: undefined for anything it rejects. */
export function parseBool(value: string): boolean | undefined {
  if (isTrue(value)) return true;
  if (value === "false" || value === "0" || value === "False" || value === "FALSE" || value === "f" || value === "F") return false;
  return undefined;
}

function splitPath(path: string): string[] {
  const parts = path.split("/");
  const out: string[] = [];
  for (const part of parts) {
    if (part === "") continue;
    out.push(part.includes("%") ? safeDecode(part) : part);
  }
  return out;
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
