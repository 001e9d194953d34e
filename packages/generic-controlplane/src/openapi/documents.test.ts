import { describe, expect, it } from "vitest";
import { gnosticDocumentType } from "./gnostic-proto.js";
import { createOpenApiDocuments } from "./documents.js";
import { testDefinitions } from "./test-fixtures.js";

describe("createOpenApiDocuments", () => {
  const docs = createOpenApiDocuments(testDefinitions, { version: "v1.32.4" });

  it("serves each indexed v3 document under its index path", () => {
    for (const [path, { serverRelativeURL }] of Object.entries(docs.v3Index().paths)) {
      const doc = docs.v3Document(path);
      expect(serverRelativeURL).toBe(`/openapi/v3/${path}?hash=${doc?.hash ?? ""}`);
      expect((JSON.parse(doc?.json ?? "{}") as { info: { version: string } }).info.version).toBe("v1.32.4");
    }
    expect(docs.v3Document("/api/v1/")).toEqual(docs.v3Document("api/v1"));
    expect(docs.v3Document("apis/nope/v1")).toBeUndefined();
  });

  it("serves v2 as JSON and as gnostic protobuf with the same content, built once", () => {
    const json = JSON.parse(docs.v2Json()) as { swagger: string; definitions: Record<string, unknown> };
    const decoded = gnosticDocumentType().decode(docs.v2Protobuf()) as unknown as {
      swagger: string;
      definitions: { additional_properties: Array<{ name: string }> };
    };
    expect(decoded.swagger).toBe(json.swagger);
    expect(decoded.definitions.additional_properties.map((d) => d.name)).toEqual(Object.keys(json.definitions));
    expect(docs.v2Protobuf()).toBe(docs.v2Protobuf());
  });
});
