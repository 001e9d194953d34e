import { describe, expect, it } from "vitest";
import { checkMetadataTypes } from "./metadata-types.js";

describe("checkMetadataTypes", () => {
  it("accepts well-typed metadata and absent or null fields", () => {
    expect(() => checkMetadataTypes({ metadata: { name: "a", labels: { a: "b" }, finalizers: ["x/y"], generation: 2, annotations: null } }, "ConfigMap")).not.toThrow();
    expect(() => checkMetadataTypes({}, "ConfigMap")).not.toThrow();
  });

  it.each([
    [{ metadata: "x" }, "json: cannot unmarshal string into Go struct field ConfigMap.metadata of type v1.ObjectMeta"],
    [{ metadata: { name: 5 } }, "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string"],
    [{ metadata: { labels: { a: 1 } } }, "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string"],
    [{ metadata: { labels: ["a"] } }, "json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string"],
    [{ metadata: { finalizers: "a" } }, "json: cannot unmarshal string into Go struct field ObjectMeta.metadata.finalizers of type []string"],
    [{ metadata: { generation: "1" } }, "json: cannot unmarshal string into Go struct field ObjectMeta.metadata.generation of type int64"],
    [{ metadata: { ownerReferences: [true] } }, "json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.ownerReferences of type v1.OwnerReference"],
  ])("rejects %j with 400", (object, message) => {
    expect(() => checkMetadataTypes(object, "ConfigMap")).toThrow(expect.objectContaining({ code: "BadRequest", message }) as Error);
  });
});
