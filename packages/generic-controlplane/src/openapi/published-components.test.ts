import { describe, expect, it } from "vitest";
import type { ResourceDefinition } from "../registry/rest/resource-definition.js";
import type { JSONSchemaProps } from "../schema/types.js";
import { buildOpenAPIv2 } from "./v2.js";
import { buildOpenAPIv3 } from "./v3.js";

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const components: Record<string, JSONSchemaProps> = {
  "io.example.v1.Gadget": {
    type: "object",
    properties: {
      metadata: ref("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"),
      spec: { allOf: [ref("io.example.v1.GadgetSpec")], description: "The gadget's spec." },
    },
  },
  "io.example.v1.GadgetSpec": {
    type: "object",
    description: "GadgetSpec is a gadget's spec.",
    properties: { part: ref("io.example.v1.Part") },
  },
  "io.example.v1.Part": { type: "object", description: "Part of a gadget.", properties: { size: { type: "integer", format: "int32" } } },
  "io.example.v1.Unrelated": { type: "object", description: "Reached by no gadget." },
};
const part = {
  type: "object",
  description: "Part of a gadget.",
  properties: { size: { type: "integer", format: "int32" } },
} satisfies JSONSchemaProps;
const gadgets: ResourceDefinition = {
  group: "example.io",
  version: "v1",
  kind: "Gadget",
  plural: "gadgets",
  singular: "gadget",
  scope: "Namespaced",
  schema: { type: "object", properties: { spec: { type: "object", description: "The gadget's spec.", properties: { part } } } },
  openapi: { schema: components["io.example.v1.Gadget"]!, components },
};

describe("a definition's published schema", () => {
  it("is what OpenAPI v3 publishes, with the components it reaches and no others", () => {
    const document = buildOpenAPIv3([gadgets]).documents.get("apis/example.io/v1")?.document as unknown as {
      components: { schemas: Record<string, Record<string, unknown>> };
    };
    const schemas = document.components.schemas;
    const kind = Object.entries(schemas).find(
      ([, schema]) =>
        JSON.stringify(schema["x-kubernetes-group-version-kind"]) ===
        JSON.stringify([{ group: "example.io", version: "v1", kind: "Gadget" }]),
    );
    expect((kind?.[1] as { properties: Record<string, unknown> }).properties["spec"]).toEqual({
      allOf: [ref("io.example.v1.GadgetSpec")],
      description: "The gadget's spec.",
    });
    expect(schemas["io.example.v1.GadgetSpec"]).toEqual(components["io.example.v1.GadgetSpec"]);
    expect(schemas["io.example.v1.Part"]).toEqual(components["io.example.v1.Part"]);
    expect(schemas["io.example.v1.Unrelated"]).toBeUndefined();
  });

  it("is what OpenAPI v2 publishes, its references as #/definitions", () => {
    const definitions = buildOpenAPIv2([gadgets]).definitions;
    expect(definitions["io.example.v1.GadgetSpec"]).toEqual({
      type: "object",
      description: "GadgetSpec is a gadget's spec.",
      properties: { part: { $ref: "#/definitions/io.example.v1.Part" } },
    });
    expect(definitions["io.example.v1.Unrelated"]).toBeUndefined();
  });
});
