import { describe, expect, it } from "vitest";
import { testDefinitions } from "../openapi/test-fixtures.js";
import type { ResourceDefinition } from "../registry/rest/resource-definition.js";
import {
  buildAggregatedDiscovery,
  buildAPIGroup,
  buildAPIGroupList,
  buildAPIResourceList,
  buildAPIVersions,
  createDiscoveryDocuments,
  storageVersionHash,
} from "./discovery.js";
import { discoveryETag, etagMatches, negotiateDiscovery } from "./negotiate.js";
import { compareKubeVersions } from "./versions.js";

describe("legacy discovery", () => {
  it("serves /api with the core versions", () => {
    expect(buildAPIVersions(testDefinitions, { serverAddress: "127.0.0.1:6443" })).toEqual({
      kind: "APIVersions",
      versions: ["v1"],
      serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: "127.0.0.1:6443" }],
    });
  });

  it("serves /apis with each group's preferred version (GA over beta)", () => {
    expect(buildAPIGroupList(testDefinitions)).toEqual({
      kind: "APIGroupList",
      apiVersion: "v1",
      groups: [
        {
          name: "coordination.k8s.io",
          versions: [{ groupVersion: "coordination.k8s.io/v1", version: "v1" }],
          preferredVersion: { groupVersion: "coordination.k8s.io/v1", version: "v1" },
        },
        {
          name: "widgets.example.com",
          versions: [
            { groupVersion: "widgets.example.com/v1", version: "v1" },
            { groupVersion: "widgets.example.com/v1beta1", version: "v1beta1" },
          ],
          preferredVersion: { groupVersion: "widgets.example.com/v1", version: "v1" },
        },
      ],
    });
    expect(buildAPIGroup(testDefinitions, "widgets.example.com")?.preferredVersion.version).toBe("v1");
    expect(buildAPIGroup(testDefinitions, "nope.example.com")).toBeUndefined();
    expect(buildAPIGroup(testDefinitions, "")).toBeUndefined();
  });

  it("serves /api/v1 like kube-apiserver, subresources included", () => {
    const list = buildAPIResourceList(testDefinitions, "", "v1");
    expect(list).toMatchObject({ kind: "APIResourceList", groupVersion: "v1" });
    expect(list).not.toHaveProperty("apiVersion");
    expect(list?.resources).toEqual([
      {
        name: "namespaces",
        singularName: "namespace",
        namespaced: false,
        kind: "Namespace",
        verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
        shortNames: ["ns"],
        storageVersionHash: storageVersionHash("", "v1", "Namespace"),
      },
      { name: "namespaces/finalize", singularName: "", namespaced: false, kind: "Namespace", verbs: ["update"] },
      { name: "namespaces/status", singularName: "", namespaced: false, kind: "Namespace", verbs: ["get", "patch", "update"] },
      {
        name: "configmaps",
        singularName: "configmap",
        namespaced: true,
        kind: "ConfigMap",
        verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
        shortNames: ["cm"],
        storageVersionHash: "qFsyl6wFWjQ=",
      },
    ]);
    expect(buildAPIResourceList(testDefinitions, "coordination.k8s.io", "v1")).toMatchObject({
      apiVersion: "v1",
      groupVersion: "coordination.k8s.io/v1",
    });
    expect(buildAPIResourceList(testDefinitions, "", "v2")).toBeUndefined();
  });

  it("computes upstream's storage version hashes", () => {
    expect(storageVersionHash("", "v1", "ConfigMap")).toBe("qFsyl6wFWjQ=");
  });
});

describe("aggregated discovery", () => {
  it("puts the core group under /api with an empty name", () => {
    const doc = buildAggregatedDiscovery(testDefinitions, "api", "v2");
    expect(doc.apiVersion).toBe("apidiscovery.k8s.io/v2");
    expect(doc.items).toHaveLength(1);
    expect(doc.items[0]?.metadata).toEqual({ creationTimestamp: null });
    const namespaces = doc.items[0]?.versions[0]?.resources.find((r) => r.resource === "namespaces");
    expect(namespaces).toEqual({
      resource: "namespaces",
      responseKind: { group: "", version: "v1", kind: "Namespace" },
      scope: "Cluster",
      singularResource: "namespace",
      verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
      shortNames: ["ns"],
      subresources: [
        { subresource: "finalize", responseKind: { group: "", version: "v1", kind: "Namespace" }, verbs: ["update"] },
        { subresource: "status", responseKind: { group: "", version: "v1", kind: "Namespace" }, verbs: ["get", "patch", "update"] },
      ],
    });
  });

  it("lists named groups under /apis, preferred version first, in v2beta1 too", () => {
    const doc = buildAggregatedDiscovery(testDefinitions, "apis", "v2beta1");
    expect(doc.apiVersion).toBe("apidiscovery.k8s.io/v2beta1");
    expect(doc.items.map((g) => g.metadata.name)).toEqual(["coordination.k8s.io", "widgets.example.com"]);
    const widgets = doc.items[1];
    expect(widgets?.versions.map((v) => v.version)).toEqual(["v1", "v1beta1"]);
    expect(widgets?.versions[0]).toMatchObject({
      freshness: "Current",
      resources: [{ resource: "widgets", categories: ["all"], shortNames: ["wd"], scope: "Namespaced" }],
    });
  });

  it("lists a definition's own subresources, with the kind a scale speaks", () => {
    const deployments: ResourceDefinition = {
      group: "apps",
      version: "v1",
      kind: "Deployment",
      plural: "deployments",
      singular: "deployment",
      scope: "Namespaced",
      statusSubresource: true,
      subresources: [{ name: "scale", verbs: ["get", "patch", "update"], kind: { group: "autoscaling", version: "v1", kind: "Scale" } }],
    };
    const list = buildAPIResourceList([deployments], "apps", "v1") as { resources: unknown[] };
    expect(list.resources).toContainEqual({
      name: "deployments/scale",
      singularName: "",
      namespaced: true,
      group: "autoscaling",
      version: "v1",
      kind: "Scale",
      verbs: ["get", "patch", "update"],
    });
    expect(list.resources).toContainEqual({
      name: "deployments/status",
      singularName: "",
      namespaced: true,
      kind: "Deployment",
      verbs: ["get", "patch", "update"],
    });
    const doc = buildAggregatedDiscovery([deployments], "apis", "v2");
    expect(doc.items[0]?.versions[0]?.resources[0]?.subresources).toEqual([
      { subresource: "scale", responseKind: { group: "autoscaling", version: "v1", kind: "Scale" }, verbs: ["get", "patch", "update"] },
      { subresource: "status", responseKind: { group: "apps", version: "v1", kind: "Deployment" }, verbs: ["get", "patch", "update"] },
    ]);
  });

  it("memoises every document", () => {
    const docs = createDiscoveryDocuments(testDefinitions);
    expect(docs.aggregated("api", "v2")).toBe(docs.aggregated("api", "v2"));
    expect(docs.resourceList("widgets.example.com", "v1beta1")).toMatchObject({ groupVersion: "widgets.example.com/v1beta1" });
    expect(docs.group("coordination.k8s.io")).toMatchObject({ kind: "APIGroup", name: "coordination.k8s.io" });
  });
});

describe("negotiateDiscovery", () => {
  const kubectl =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

  it("answers kubectl 1.32 with aggregated v2 and the exact Content-Type", () => {
    expect(negotiateDiscovery(kubectl)).toEqual({
      form: "aggregated",
      version: "v2",
      contentType: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
    });
  });

  it("accepts parameters in any order and falls back to v2beta1", () => {
    expect(negotiateDiscovery("application/json;as=APIGroupDiscoveryList;v=v2beta1;g=apidiscovery.k8s.io, application/json")).toMatchObject(
      {
        form: "aggregated",
        version: "v2beta1",
        contentType: "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList",
      },
    );
    expect(
      negotiateDiscovery("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;profile=nopeer,application/json"),
    ).toMatchObject({ version: "v2" });
  });

  it("serves legacy JSON to old clients and 406 to unacceptable ones", () => {
    expect(negotiateDiscovery("application/json, */*")).toEqual({ form: "legacy", contentType: "application/json" });
    expect(negotiateDiscovery(undefined)).toMatchObject({ form: "legacy" });
    expect(negotiateDiscovery("application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList")).toBeUndefined();
    expect(negotiateDiscovery("application/vnd.kubernetes.protobuf")).toBeUndefined();
    expect(negotiateDiscovery("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0, */*")).toMatchObject({
      form: "legacy",
    });
  });
});

describe("ETag", () => {
  it("changes with the body and matches If-None-Match forms", () => {
    const a = discoveryETag(JSON.stringify(buildAggregatedDiscovery(testDefinitions, "apis")));
    const b = discoveryETag(JSON.stringify(buildAggregatedDiscovery(testDefinitions.slice(0, 2), "apis")));
    expect(a).not.toBe(b);
    expect(a).toMatch(/^"[0-9A-F]{64}"$/);
    expect(etagMatches(a, a)).toBe(true);
    expect(etagMatches(`W/${a}, "x"`, a)).toBe(true);
    expect(etagMatches("*", a)).toBe(true);
    expect(etagMatches(b, a)).toBe(false);
    expect(etagMatches(undefined, a)).toBe(false);
  });
});

describe("compareKubeVersions", () => {
  it("orders like apimachinery", () => {
    const sorted = [
      "v1alpha1",
      "foo",
      "v1beta2",
      "v2",
      "v1",
      "v11alpha2",
      "v10beta3",
      "v1beta1",
      "bar",
      "v12alpha1",
      "v10",
      "v3beta1",
    ].sort(compareKubeVersions);
    expect(sorted).toEqual([
      "v10",
      "v2",
      "v1",
      "v10beta3",
      "v3beta1",
      "v1beta2",
      "v1beta1",
      "v12alpha1",
      "v11alpha2",
      "v1alpha1",
      "bar",
      "foo",
    ]);
  });
});
