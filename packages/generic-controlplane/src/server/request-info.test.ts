import { describe, expect, it } from "vitest";
import { parseRequestInfo } from "./request-info.js";

const q = (s = "") => new URLSearchParams(s);

describe("parseRequestInfo", () => {
  it("reads core and group paths, namespaced and cluster-wide", () => {
    expect(parseRequestInfo("GET", "/api/v1/namespaces/ns1/configmaps/cm", q())).toMatchObject({
      isResourceRequest: true,
      verb: "get",
      group: "",
      version: "v1",
      namespace: "ns1",
      resource: "configmaps",
      name: "cm",
      subresource: "",
    });
    expect(parseRequestInfo("GET", "/api/v1/configmaps", q())).toMatchObject({
      verb: "list",
      namespace: undefined,
      resource: "configmaps",
    });
    expect(parseRequestInfo("POST", "/apis/coordination.k8s.io/v1/namespaces/a/leases", q())).toMatchObject({
      verb: "create",
      group: "coordination.k8s.io",
      version: "v1",
      namespace: "a",
      resource: "leases",
      name: "",
    });
  });

  it("treats /namespaces/<n>, its status and finalize as the namespace object", () => {
    expect(parseRequestInfo("GET", "/api/v1/namespaces/foo", q())).toMatchObject({
      verb: "get",
      namespace: undefined,
      resource: "namespaces",
      name: "foo",
    });
    expect(parseRequestInfo("PUT", "/api/v1/namespaces/foo/finalize", q())).toMatchObject({
      verb: "update",
      resource: "namespaces",
      name: "foo",
      subresource: "finalize",
    });
    expect(parseRequestInfo("PATCH", "/api/v1/namespaces/foo/status", q())).toMatchObject({
      verb: "patch",
      resource: "namespaces",
      name: "foo",
      subresource: "status",
    });
    expect(parseRequestInfo("PUT", "/api/v1/namespaces/foo/configmaps/x/status", q())).toMatchObject({
      namespace: "foo",
      resource: "configmaps",
      name: "x",
      subresource: "status",
    });
  });

  it("detects watches from every ParseBool spelling and from the legacy /watch/ prefix", () => {
    for (const value of ["true", "1", "True", "t"]) {
      expect(parseRequestInfo("GET", "/api/v1/configmaps", q(`watch=${value}`))).toMatchObject({ verb: "watch" });
    }
    expect(parseRequestInfo("GET", "/api/v1/configmaps", q("watch=false"))).toMatchObject({ verb: "list" });
    expect(parseRequestInfo("GET", "/api/v1/watch/namespaces/a/configmaps/b", q())).toMatchObject({
      verb: "watch",
      legacyWatch: true,
      namespace: "a",
      name: "b",
    });
  });

  it("maps DELETE on a collection to deletecollection", () => {
    expect(parseRequestInfo("DELETE", "/api/v1/namespaces/a/configmaps", q())).toMatchObject({ verb: "deletecollection" });
    expect(parseRequestInfo("DELETE", "/api/v1/namespaces/a/configmaps/b", q())).toMatchObject({ verb: "delete" });
  });

  it("leaves discovery and other paths to the non-resource handlers", () => {
    expect(parseRequestInfo("GET", "/api", q())).toMatchObject({ isResourceRequest: false, segments: ["api"] });
    expect(parseRequestInfo("GET", "/api/v1", q())).toMatchObject({ isResourceRequest: false, segments: ["api", "v1"] });
    expect(parseRequestInfo("GET", "/apis/coordination.k8s.io/v1", q())).toMatchObject({ isResourceRequest: false });
    expect(parseRequestInfo("GET", "/healthz/ping", q())).toMatchObject({ isResourceRequest: false, segments: ["healthz", "ping"] });
    expect(parseRequestInfo("GET", "/api/v1/namespaces/a/configmaps/b/c/d", q())).toMatchObject({ isResourceRequest: false });
  });

  it("reads a proxy request with the path it forwards as the proxy subresource, its verb from the method", () => {
    expect(parseRequestInfo("GET", "/api/v1/namespaces/a/pods/web:8080/proxy/healthz/ready", q())).toMatchObject({
      isResourceRequest: true,
      verb: "get",
      namespace: "a",
      resource: "pods",
      name: "web:8080",
      subresource: "proxy",
    });
    expect(parseRequestInfo("POST", "/api/v1/namespaces/a/services/http:web:http/proxy/echo", q())).toMatchObject({
      verb: "create",
      resource: "services",
      name: "http:web:http",
      subresource: "proxy",
    });
  });
});
