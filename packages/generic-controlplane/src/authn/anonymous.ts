/**
 * Which requests without credentials are let in as `system:anonymous` (upstream's
 * `AuthenticationConfiguration.anonymous` with `conditions`): `"*"` lets every one through to the
 * authorizer, as `--anonymous-auth=true` without conditions; a list of paths (a trailing `/*`
 * matches below a path) admits only those, and any other request without credentials is a 401.
 */
export type AnonymousPaths = readonly string[] | "*";

/** What the decision reads of a request's RequestInfo. */
export type AnonymousRequestInfo = { readonly isResourceRequest: true } | { readonly isResourceRequest: false; readonly path: string };

/**
 * Health, version and discovery: what upstream's `system:public-info-viewer` and `system:discovery`
 * roles expose, and what a client probes before it has credentials.
 */
export const DEFAULT_ANONYMOUS_PATHS: readonly string[] = [
  "/healthz",
  "/healthz/*",
  "/livez",
  "/livez/*",
  "/readyz",
  "/readyz/*",
  "/version",
  "/api",
  "/apis",
  "/openapi/v2",
  "/openapi/v3",
  "/openapi/v3/*",
];

/** `/api/v1`, `/apis/<group>`, `/apis/<group>/<version>`: discovery documents, not resources. */
function discoveryRoot(info: AnonymousRequestInfo | undefined): "/api" | "/apis" | undefined {
  if (info === undefined || info.isResourceRequest) return undefined;
  const segments = info.path.split("/").filter((s) => s !== "");
  if (segments[0] === "api" && segments.length === 2) return "/api";
  if (segments[0] === "apis" && (segments.length === 2 || segments.length === 3)) return "/apis";
  return undefined;
}

export function anonymousAllowed(paths: AnonymousPaths, path: string, info: AnonymousRequestInfo | undefined): boolean {
  if (paths === "*") return true;
  if (info?.isResourceRequest) return false;
  for (const pattern of paths) {
    if (pattern === path) return true;
    if (pattern.endsWith("/*") && path.startsWith(pattern.slice(0, -1))) return true;
  }
  // The discovery documents below /api and /apis come with them.
  const root = discoveryRoot(info);
  return root !== undefined && paths.includes(root);
}
