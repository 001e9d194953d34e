/**
 * The discovery and OpenAPI documents the server publishes. They are built from the served
 * resource definitions by the discovery and openapi modules; the server only negotiates and
 * caches them. `invalidate()` is the seam for resources that come and go (CRDs, aggregation).
 */
export interface DiscoveryDocuments {
  /** `GET /api`: APIVersions. */
  legacyVersions(): unknown;
  /** `GET /apis`: APIGroupList. */
  groupList(): unknown;
  /** `GET /apis/<group>`: APIGroup, or undefined when not served. */
  group(name: string): unknown;
  /** `GET /api/v1`, `GET /apis/<group>/<version>`: APIResourceList, or undefined when not served. */
  resourceList(group: string, version: string): unknown;
  /** Aggregated discovery (`APIGroupDiscoveryList`) for `/api` or `/apis`. */
  aggregated(prefix: "api" | "apis", version: "v2" | "v2beta1"): unknown;
}

export interface OpenApiDocuments {
  /** `GET /openapi/v3`: `{paths: {"api/v1": {serverRelativeURL}}}`. */
  v3Index(): unknown;
  /** `GET /openapi/v3/<path>` for `api/v1` or `apis/<g>/<v>`; undefined when not served. */
  v3Document(path: string): { json: string; hash: string } | undefined;
  /** `GET /openapi/v2` as gnostic protobuf (what kubectl requests). */
  v2Protobuf(): Uint8Array;
  /** `GET /openapi/v2` as JSON (Swagger 2.0). */
  v2Json(): string;
}
