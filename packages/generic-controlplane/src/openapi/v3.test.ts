import { describe, expect, it } from "vitest";
import { testConfigMaps, testDefinitions } from "./test-fixtures.js";
import { definitionName } from "./names.js";
import { buildOpenAPIv3, contentHash, toV3Schema } from "./v3.js";

type Operation = {
  parameters: Array<{ name: string; in: string }>;
  "x-kubernetes-action": string;
  "x-kubernetes-group-version-kind": unknown;
  operationId: string;
  requestBody?: { content: Record<string, unknown> };
};
type Doc = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Record<string, unknown>> } };

const v3 = buildOpenAPIv3(testDefinitions);
const core = v3.documents.get("api/v1")?.document as unknown as Doc;

describe("buildOpenAPIv3", () => {
  it("indexes every group-version with a content-hash URL", () => {
    expect(Object.keys(v3.index.paths)).toEqual([
      "api/v1",
      "apis/coordination.k8s.io/v1",
      "apis/widgets.example.com/v1beta1",
      "apis/widgets.example.com/v1",
    ]);
    for (const [path, { serverRelativeURL }] of Object.entries(v3.index.paths)) {
      const doc = v3.documents.get(path);
      expect(doc?.hash).toBe(contentHash(doc?.json ?? ""));
      expect(serverRelativeURL).toBe(`/openapi/v3/${path}?hash=${doc?.hash ?? ""}`);
      expect(doc?.hash).toMatch(/^[0-9A-F]{128}$/);
    }
  });

  it("changes the hash when a schema changes and only then", () => {
    const again = buildOpenAPIv3(testDefinitions);
    expect(again.index).toEqual(v3.index);
    const changed = buildOpenAPIv3([
      { ...testConfigMaps, schema: { ...testConfigMaps.schema, description: "changed" } },
      ...testDefinitions.slice(2),
    ]);
    expect(changed.index.paths["api/v1"]).not.toEqual(v3.index.paths["api/v1"]);
    expect(changed.index.paths["apis/coordination.k8s.io/v1"]).toEqual(v3.index.paths["apis/coordination.k8s.io/v1"]);
  });

  it("gives every PATCH operation fieldValidation and the GVK, which kubectl checks before validating server-side", () => {
    const patches = Object.values(core.paths).flatMap((item) => (item.patch === undefined ? [] : [item.patch]));
    expect(patches.map((p) => p.operationId).sort()).toEqual([
      "patchCoreV1Namespace",
      "patchCoreV1NamespaceStatus",
      "patchCoreV1NamespacedConfigMap",
    ]);
    for (const patch of patches) {
      expect(patch.parameters).toContainEqual(expect.objectContaining({ name: "fieldValidation", in: "query" }));
      expect(patch["x-kubernetes-action"]).toBe("patch");
      expect(Object.keys(patch.requestBody?.content ?? {})).toEqual([
        "application/json-patch+json",
        "application/merge-patch+json",
        "application/strategic-merge-patch+json",
        "application/apply-patch+yaml",
      ]);
    }
    expect(core.paths["/api/v1/namespaces/{namespace}/configmaps/{name}"]?.patch?.["x-kubernetes-group-version-kind"]).toEqual({
      group: "",
      version: "v1",
      kind: "ConfigMap",
    });
  });

  it("publishes every verb's path like kube-apiserver", () => {
    const actions = Object.fromEntries(
      Object.entries(core.paths).map(([path, item]) => [
        path,
        Object.fromEntries(Object.entries(item).map(([m, op]) => [m, op["x-kubernetes-action"]])),
      ]),
    );
    expect(actions).toMatchObject({
      "/api/v1/namespaces/{namespace}/configmaps": { get: "list", post: "post", delete: "deletecollection" },
      "/api/v1/namespaces/{namespace}/configmaps/{name}": { get: "get", put: "put", patch: "patch", delete: "delete" },
      "/api/v1/configmaps": { get: "list" },
      "/api/v1/watch/namespaces/{namespace}/configmaps": { get: "watchlist" },
      "/api/v1/watch/namespaces/{namespace}/configmaps/{name}": { get: "watch" },
      "/api/v1/watch/configmaps": { get: "watchlist" },
      "/api/v1/namespaces": { get: "list", post: "post" },
      "/api/v1/namespaces/{name}/status": { get: "get", put: "put", patch: "patch" },
      "/api/v1/namespaces/{name}/finalize": { put: "put" },
    });
    expect(core.paths["/api/v1/namespaces"]?.delete).toBeUndefined();
  });

  it("publishes the kinds with their GVKs and the meta/v1 types", () => {
    const schemas = core.components.schemas;
    const configMap = schemas[definitionName("", "v1", "ConfigMap")];
    expect(configMap?.["x-kubernetes-group-version-kind"]).toEqual([{ group: "", version: "v1", kind: "ConfigMap" }]);
    expect(schemas["io.k8s.api.core.v1.ConfigMapList"]?.["x-kubernetes-group-version-kind"]).toEqual([
      { group: "", version: "v1", kind: "ConfigMapList" },
    ]);
    expect(Object.keys(schemas)).toEqual(
      expect.arrayContaining([
        "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
        "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta",
        "io.k8s.apimachinery.pkg.apis.meta.v1.Status",
        "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
        "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
        "io.k8s.apimachinery.pkg.apis.meta.v1.Patch",
      ]),
    );
    const ownerReferences = (
      schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]?.properties as Record<string, Record<string, unknown>>
    ).ownerReferences;
    expect(ownerReferences).toMatchObject({ "x-kubernetes-patch-merge-key": "uid", "x-kubernetes-patch-strategy": "merge" });
    // A definition without a schema still gets metadata, so kubectl explain shows KIND and VERSION.
    const widgets = v3.documents.get("apis/widgets.example.com/v1")?.document as unknown as Doc;
    expect(widgets.components.schemas["com.example.widgets.v1.Widget"]).toMatchObject({
      "x-kubernetes-preserve-unknown-fields": true,
      "x-kubernetes-group-version-kind": [{ group: "widgets.example.com", version: "v1", kind: "Widget" }],
    });
  });

  it("wraps references that carry a description in allOf", () => {
    expect(toV3Schema({ $ref: "#/components/schemas/x", description: "d" })).toEqual({
      description: "d",
      allOf: [{ $ref: "#/components/schemas/x" }],
    });
    expect(toV3Schema({ $ref: "#/components/schemas/x" })).toEqual({ $ref: "#/components/schemas/x" });
    expect(toV3Schema({ type: "array", items: { $ref: "#/components/schemas/x", description: "i" } })).toEqual({
      type: "array",
      items: { description: "i", allOf: [{ $ref: "#/components/schemas/x" }] },
    });
  });
});
