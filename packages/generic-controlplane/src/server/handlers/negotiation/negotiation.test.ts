import { describe, expect, it } from "vitest";
import { bodyFormat, negotiateDiscovery, negotiateObjectFormat } from "./negotiation.js";

const KUBECTL_GET = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
const KUBECTL_DISCOVERY =
  "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

describe("negotiateObjectFormat", () => {
  it("serves kubectl's Table Accept as a v1 Table on reads and as JSON on writes", () => {
    expect(negotiateObjectFormat(KUBECTL_GET, true)).toEqual({ type: "table", version: "v1" });
    expect(negotiateObjectFormat(KUBECTL_GET, false)).toEqual({ type: "json" });
    expect(negotiateObjectFormat("application/json;as=Table;v=v1beta1;g=meta.k8s.io", true)).toEqual({ type: "table", version: "v1beta1" });
  });

  it("answers JSON to protobuf clients that also accept JSON, protobuf to protobuf-only ones, and nothing to Table-only writes", () => {
    expect(negotiateObjectFormat("application/vnd.kubernetes.protobuf,application/json", false)).toEqual({ type: "json" });
    expect(negotiateObjectFormat("application/vnd.kubernetes.protobuf", false)).toEqual({ type: "protobuf" });
    expect(negotiateObjectFormat("text/html", false)).toBeUndefined();
    expect(negotiateObjectFormat("application/json;as=Table;v=v1;g=meta.k8s.io", false)).toBeUndefined();
    expect(negotiateObjectFormat("application/json;as=Table;v=v2;g=meta.k8s.io", true)).toBeUndefined();
  });

  it("honours q values and YAML", () => {
    expect(negotiateObjectFormat("application/json;q=0.5, application/yaml", true)).toEqual({ type: "yaml" });
    expect(negotiateObjectFormat(undefined, true)).toEqual({ type: "json" });
    expect(negotiateObjectFormat("*/*", true)).toEqual({ type: "json" });
  });
});

describe("negotiateDiscovery", () => {
  it("picks aggregated v2 for kubectl, v2beta1 when only that is offered, legacy otherwise", () => {
    expect(negotiateDiscovery(KUBECTL_DISCOVERY)).toBe("v2");
    expect(negotiateDiscovery("application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList")).toBe("v2beta1");
    expect(negotiateDiscovery("application/json, */*")).toBe("legacy");
    expect(negotiateDiscovery("application/vnd.kubernetes.protobuf")).toBeUndefined();
  });
});

describe("bodyFormat", () => {
  it("treats a missing Content-Type as JSON and knows every patch type", () => {
    expect(bodyFormat(undefined)).toBe("json");
    expect(bodyFormat("application/json; charset=utf-8")).toBe("json");
    expect(bodyFormat("application/yaml")).toBe("yaml");
    expect(bodyFormat("application/vnd.kubernetes.protobuf")).toBe("protobuf");
    expect(bodyFormat("application/strategic-merge-patch+json")).toBe("strategic-merge-patch");
    expect(bodyFormat("application/apply-patch+yaml")).toBe("apply-patch");
    expect(bodyFormat("text/plain")).toBe("unsupported");
  });
});
