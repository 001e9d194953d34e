import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { gnosticDocumentType } from "./gnostic-proto.js";
import { testDefinitions } from "./test-fixtures.js";
import { buildOpenAPIv2, toV2Schema } from "./v2.js";
import { buildOpenAPIv2Protobuf, encodeGnosticDocument } from "./v2-protobuf.js";

interface Decoded {
  swagger: string;
  info: { title: string };
  paths: {
    path: Array<{
      name: string;
      value: Record<
        string,
        {
          operation_id: string;
          parameters: Array<Record<string, Record<string, Record<string, { name: string }>>>>;
          vendor_extension: Array<{ name: string; value: { yaml: string } }>;
        }
      >;
    }>;
  };
  definitions: { additional_properties: Array<{ name: string; value: DecodedSchema }> };
}
interface DecodedSchema {
  _ref?: string;
  description?: string;
  type?: { value: string[] };
  properties?: { additional_properties: Array<{ name: string; value: DecodedSchema }> };
  additional_properties?: { schema?: DecodedSchema; boolean?: boolean };
  items?: { schema: DecodedSchema[] };
  required?: string[];
  vendor_extension?: Array<{ name: string; value: { yaml: string } }>;
}

function decode(bytes: Uint8Array): Decoded {
  const type = gnosticDocumentType();
  return type.toObject(type.decode(bytes), { defaults: false, arrays: true }) as Decoded;
}

function definition(doc: Decoded, name: string): DecodedSchema {
  const found = doc.definitions.additional_properties.find((d) => d.name === name)?.value;
  if (found === undefined) throw new Error(`no definition ${name}`);
  return found;
}

function property(schema: DecodedSchema, name: string): DecodedSchema {
  const found = schema.properties?.additional_properties.find((p) => p.name === name)?.value;
  if (found === undefined) throw new Error(`no property ${name}`);
  return found;
}

function extensions(schema: { vendor_extension?: Array<{ name: string; value: { yaml: string } }> }): Record<string, unknown> {
  return Object.fromEntries((schema.vendor_extension ?? []).map((e) => [e.name, parse(e.value.yaml) as unknown]));
}

describe("OpenAPI v2 as gnostic protobuf", () => {
  it("uses gnostic's field numbers (the 15-byte document kubectl accepts, plus definitions)", () => {
    const bytes = encodeGnosticDocument({ swagger: "2.0", info: { title: "x", version: "v" }, paths: {}, definitions: {} });
    expect(Buffer.from(bytes).toString("hex")).toBe("0a03322e30" + "1206" + "0a0178" + "120176" + "4200" + "4a00");
  });

  const doc = decode(buildOpenAPIv2Protobuf(testDefinitions, { version: "v1.32.4" }));

  it("carries the whole API: every path and definition", () => {
    expect(doc.swagger).toBe("2.0");
    const json = buildOpenAPIv2(testDefinitions);
    expect(doc.paths.path.map((p) => p.name)).toEqual(Object.keys(json.paths));
    expect(doc.definitions.additional_properties.map((d) => d.name)).toEqual(Object.keys(json.definitions));
  });

  it("keeps the strategic merge patch extensions kubectl apply reads", () => {
    const meta = definition(doc, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
    expect(extensions(property(meta, "ownerReferences"))).toMatchObject({
      "x-kubernetes-patch-merge-key": "uid",
      "x-kubernetes-patch-strategy": "merge",
    });
    expect(extensions(property(meta, "finalizers"))).toMatchObject({ "x-kubernetes-patch-strategy": "merge" });
    expect(property(meta, "ownerReferences").items?.schema[0]?._ref).toBe(
      "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference",
    );
  });

  it("marks kinds with x-kubernetes-group-version-kind as a YAML list", () => {
    const configMap = definition(doc, "io.k8s.api.core.v1.ConfigMap");
    expect(extensions(configMap)["x-kubernetes-group-version-kind"]).toEqual([{ group: "", version: "v1", kind: "ConfigMap" }]);
    expect(property(configMap, "metadata")._ref).toBe("#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
    expect(property(configMap, "data")).toMatchObject({
      type: { value: ["object"] },
      additional_properties: { schema: { type: { value: ["string"] } } },
    });
    expect(definition(doc, "io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference").required).toEqual(["apiVersion", "kind", "name", "uid"]);
  });

  it("encodes operations with their parameters and extensions", () => {
    const item = doc.paths.path.find((p) => p.name === "/api/v1/namespaces/{namespace}/configmaps/{name}")?.value;
    const patch = item?.patch;
    expect(patch?.operation_id).toBe("patchCoreV1NamespacedConfigMap");
    const names = (patch?.parameters ?? []).map((p) => {
      const nonBody = p.parameter?.non_body_parameter;
      return nonBody?.query_parameter_sub_schema?.name ?? nonBody?.path_parameter_sub_schema?.name ?? "body";
    });
    expect(names).toEqual(["name", "namespace", "pretty", "body", "dryRun", "fieldManager", "fieldValidation", "force"]);
    expect(extensions(patch ?? {})).toEqual({
      "x-kubernetes-action": "patch",
      "x-kubernetes-group-version-kind": { group: "", version: "v1", kind: "ConfigMap" },
    });
  });
});

describe("toV2Schema", () => {
  it("turns v3 references (plain or allOf-wrapped) into #/definitions references and drops v3-only keywords", () => {
    expect(toV2Schema({ allOf: [{ $ref: "#/components/schemas/a.B" }], description: "d" })).toEqual({
      $ref: "#/definitions/a.B",
      description: "d",
    });
    expect(toV2Schema({ type: "string", nullable: true, anyOf: [{ type: "integer" }] })).toEqual({ type: "string" });
  });
});
