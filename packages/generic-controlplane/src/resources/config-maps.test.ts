import { describe, expect, it } from "vitest";
import { configMapsResource } from "./config-maps.js";
import { cells, createErrors, updateErrors } from "./test-helpers.js";

const KEY_MSG =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";
const cm = (fields: Record<string, unknown>) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "c", namespace: "default" },
  ...fields,
});

describe("ConfigMap create validation", () => {
  it.each([
    ["valid keys", { data: { "key.name": "a", KEY_NAME: "b", "key-name": "c" }, binaryData: { bin: "AAE=" } }, []],
    ["empty key", { data: { "": "x" } }, [`data[]: Invalid value: "": ${KEY_MSG}`]],
    ["key with a space", { data: { "a b": "x" } }, [`data[a b]: Invalid value: "a b": ${KEY_MSG}`]],
    ["key '.'", { data: { ".": "x" } }, [`data[.]: Invalid value: ".": must not be '.'`]],
    ["key starting with '..'", { binaryData: { "..a": "AA==" } }, [`binaryData[..a]: Invalid value: "..a": must not start with '..'`]],
    [
      "same key in both maps",
      { data: { a: "x" }, binaryData: { a: "AA==" } },
      [`data[a]: Invalid value: "a": duplicate of key present in binaryData`],
    ],
    ["data over 1 MiB", { data: { a: "x".repeat(1024 * 1024), b: "y" } }, [": Too long: may not be more than 1048576 bytes"]],
    ["exactly 1 MiB across both maps", { data: { a: "x".repeat(1024 * 1024 - 3) }, binaryData: { b: "AAAA" } }, []],
  ])("%s", (_name, fields, expected) => {
    expect(createErrors(configMapsResource, cm(fields)).errors).toEqual(expected);
  });

  it("rejects binaryData that is not base64 with Go's decode error, as a 400", () => {
    expect(() => createErrors(configMapsResource, cm({ binaryData: { a: "!!!" } }))).toThrow(
      expect.objectContaining({
        code: "BadRequest",
        message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: illegal base64 data at input byte 0',
      }),
    );
  });

  it.each([
    [{ data: { a: 1 } }, "json: cannot unmarshal number into Go struct field ConfigMap.data of type string"],
    [{ data: ["a"] }, "json: cannot unmarshal array into Go struct field ConfigMap.data of type map[string]string"],
    [{ binaryData: { a: true } }, "json: cannot unmarshal bool into Go struct field ConfigMap.binaryData of type []uint8"],
  ])("rejects mistyped maps %j like Go's decoder", (fields, reason) => {
    expect(() => createErrors(configMapsResource, cm(fields))).toThrow(
      expect.objectContaining({ code: "BadRequest", message: `ConfigMap in version "v1" cannot be handled as a ConfigMap: ${reason}` }),
    );
  });

  it("decodes null entries as empty values, like Go", () => {
    expect(createErrors(configMapsResource, cm({ data: { a: null }, binaryData: { b: null } })).object).toMatchObject({
      data: { a: "" },
      binaryData: { b: "" },
    });
  });

  it("stores binaryData in canonical base64", () => {
    expect(createErrors(configMapsResource, cm({ binaryData: { a: "YW\nJj" } })).object["binaryData"]).toEqual({ a: "YWJj" });
  });
});

describe("ConfigMap immutability", () => {
  const old = cm({ data: { a: "1" }, binaryData: { b: "AA==" }, immutable: true });
  it.each([
    ["metadata-only change", { ...old, metadata: { ...old.metadata, labels: { x: "y" } } }, []],
    ["data change", { ...old, data: { a: "2" } }, ["data: Forbidden: field is immutable when `immutable` is set"]],
    ["binaryData removed", { ...old, binaryData: undefined }, ["binaryData: Forbidden: field is immutable when `immutable` is set"]],
    ["immutable flipped back", { ...old, immutable: false }, ["immutable: Forbidden: field is immutable when `immutable` is set"]],
    ["immutable dropped", { ...old, immutable: undefined }, ["immutable: Forbidden: field is immutable when `immutable` is set"]],
  ])("%s", (_name, next, expected) => {
    expect(updateErrors(configMapsResource, next, old).errors).toEqual(expected);
  });

  it("lets a mutable ConfigMap change data and become immutable", () => {
    const mutable = cm({ data: { a: "1" } });
    expect(updateErrors(configMapsResource, cm({ data: { a: "2" }, immutable: true }), mutable).errors).toEqual([]);
  });
});

describe("ConfigMap table", () => {
  it("counts data and binaryData entries in DATA", () => {
    const row = cells(
      configMapsResource,
      cm({ data: { a: "1", b: "2" }, binaryData: { c: "AA==" }, metadata: { name: "c", creationTimestamp: "2024-01-01T00:00:00Z" } }),
    );
    expect(row).toEqual({ Data: 3, Age: "2024-01-01T00:00:00Z" });
  });
});
