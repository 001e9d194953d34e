import { describe, expect, it } from "vitest";
import { builtinResources, selectBuiltinResources } from "./builtin-resources.js";

describe("built-in resources", () => {
  it("offers every built-in with a schema naming its kind", () => {
    const all = selectBuiltinResources();
    expect(all.map((d) => `${d.group}/${d.version}/${d.plural}`)).toEqual([
      "/v1/namespaces",
      "/v1/configmaps",
      "/v1/secrets",
      "/v1/resourcequotas",
      "/v1/limitranges",
      "/v1/serviceaccounts",
      "/v1/events",
      "events.k8s.io/v1/events",
      "coordination.k8s.io/v1/leases",
      "admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
      "admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
      "admissionregistration.k8s.io/v1/validatingadmissionpolicies",
      "admissionregistration.k8s.io/v1/validatingadmissionpolicybindings",
      "apiregistration.k8s.io/v1/apiservices",
      "certificates.k8s.io/v1/certificatesigningrequests",
      "apiextensions.k8s.io/v1/customresourcedefinitions",
    ]);
    for (const definition of all) {
      expect(definition.schema?.["x-kubernetes-group-version-kind"]).toEqual([
        { group: definition.group, version: definition.version, kind: definition.kind },
      ]);
      expect(definition.schema?.properties?.["metadata"]?.$ref).toBe(
        "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
      );
    }
  });

  it("lets a consumer choose a subset and rejects unknown names", () => {
    expect(selectBuiltinResources(["configmaps", "leases.coordination.k8s.io"])).toEqual([
      builtinResources.configmaps,
      builtinResources["leases.coordination.k8s.io"],
    ]);
    expect(() => selectBuiltinResources(["pods" as never])).toThrow(/unknown built-in resource "pods"/);
  });
});
