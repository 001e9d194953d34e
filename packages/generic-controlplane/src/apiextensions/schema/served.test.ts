/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- tests read arbitrary JSON responses */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlane, type TestPlane } from "../../server/test-support.js";
import { establish, eventually } from "../test-fixtures.js";
import type { CustomResourceDefinition } from "../types.js";

/**
 * Structural schemas through the server: a custom resource with bad fields gets kube-apiserver's
 * 422, fieldValidation reports what pruning drops, defaults appear on write and on read, and a CRD
 * whose schema breaks the rules is refused with the causes CRD validation lists.
 */

const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const GADGETS = "/apis/schema.example.com/v1/namespaces/default/gadgets";

function gadgetCrd(): CustomResourceDefinition {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "gadgets.schema.example.com" },
    spec: {
      group: "schema.example.com",
      scope: "Namespaced",
      names: { plural: "gadgets", singular: "gadget", kind: "Gadget" },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: {
                spec: {
                  type: "object",
                  required: ["size"],
                  properties: {
                    size: { type: "string", enum: ["small", "large"] },
                    replicas: { type: "integer", minimum: 0, default: 1 },
                    mode: { type: "string", default: "auto" },
                    tags: { type: "array", "x-kubernetes-list-type": "set", items: { type: "string" } },
                    extra: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
}

let t: TestPlane;
beforeAll(async () => {
  t = await startTestPlane();
  await establish(t, gadgetCrd());
});
afterAll(async () => {
  await t.close();
});

describe("custom resources against their structural schema", () => {
  it("answers a bad object with 422 Invalid and one cause per problem, as kube-apiserver words them", async () => {
    const res = await t.call("POST", GADGETS, {
      body: {
        apiVersion: "schema.example.com/v1",
        kind: "Gadget",
        metadata: { name: "bad" },
        spec: { size: "medium", replicas: "three", tags: ["a", "a"] },
      },
    });
    expect(res.status).toBe(422);
    expect(res.json).toMatchObject({
      kind: "Status",
      status: "Failure",
      reason: "Invalid",
      code: 422,
      details: { name: "bad", group: "schema.example.com", kind: "Gadget" },
    });
    expect(res.json.details.causes).toEqual([
      { reason: "FieldValueNotSupported", message: `Unsupported value: "medium": supported values: "small", "large"`, field: "spec.size" },
      {
        reason: "FieldValueTypeInvalid",
        message: `Invalid value: "string": spec.replicas in body must be of type integer: "string"`,
        field: "spec.replicas",
      },
      { reason: "FieldValueDuplicate", message: `Duplicate value: "a"`, field: "spec.tags[1]" },
    ]);
    expect(res.json.message).toBe(
      `Gadget.schema.example.com "bad" is invalid: [spec.size: Unsupported value: "medium": supported values: "small", "large", spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string", spec.tags[1]: Duplicate value: "a"]`,
    );
    expect((await t.call("GET", `${GADGETS}/bad`)).status).toBe(404);
  });

  it("reports a missing required field and a broken bound", async () => {
    const res = await t.call("POST", GADGETS, { body: { metadata: { name: "bad2" }, spec: { replicas: -1 } } });
    expect(res.status).toBe(422);
    expect(res.json.details.causes).toEqual([
      {
        reason: "FieldValueInvalid",
        message: "Invalid value: -1: spec.replicas in body should be greater than or equal to 0",
        field: "spec.replicas",
      },
      { reason: "FieldValueRequired", message: "Required value", field: "spec.size" },
    ]);
  });

  it("rejects unknown fields with fieldValidation=Strict, naming each", async () => {
    const res = await t.call("POST", `${GADGETS}?fieldValidation=Strict`, {
      body: { metadata: { name: "strict" }, spec: { size: "small", foo: 1, bar: { x: 1 } } },
    });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ reason: "BadRequest" });
    expect(res.json.message).toContain(`unknown field "spec.bar"`);
    expect(res.json.message).toContain(`unknown field "spec.foo"`);
  });

  it("warns about unknown fields with fieldValidation=Warn, and prunes them while keeping preserved ones", async () => {
    const res = await t.call("POST", `${GADGETS}?fieldValidation=Warn`, {
      body: { metadata: { name: "warn" }, spec: { size: "small", foo: 1, extra: { anything: { goes: true } } } },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("warning")).toContain(`unknown field \\"spec.foo\\"`);
    const stored = (await t.call("GET", `${GADGETS}/warn`)).json;
    expect(stored.spec).toEqual({ size: "small", replicas: 1, mode: "auto", extra: { anything: { goes: true } } });
  });

  it("fills defaults on create", async () => {
    const res = await t.call("POST", GADGETS, { body: { metadata: { name: "defaults" }, spec: { size: "large", replicas: 3 } } });
    expect(res.status).toBe(201);
    expect(res.json.spec).toEqual({ size: "large", replicas: 3, mode: "auto" });
  });

  it("shows defaults added to the CRD later when objects are read, without rewriting storage", async () => {
    await t.call("POST", GADGETS, { body: { metadata: { name: "older" }, spec: { size: "small" } } });
    const crd = (await t.call("GET", `${CRDS}/gadgets.schema.example.com`)).json;
    crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.color = { type: "string", default: "grey" };
    expect((await t.call("PUT", `${CRDS}/gadgets.schema.example.com`, { body: crd })).status).toBe(200);
    const read = await eventually("the new default on read", async () => {
      const got = (await t.call("GET", `${GADGETS}/older`)).json;
      return got.spec.color === undefined ? undefined : got;
    });
    expect(read.spec).toEqual({ size: "small", replicas: 1, mode: "auto", color: "grey" });
    const listed = (await t.call("GET", GADGETS)).json.items.find((g: { metadata: { name: string } }) => g.metadata.name === "older");
    expect(listed.spec.color).toBe("grey");
  });
});

describe("CustomResourceDefinitions with schemas that break the rules", () => {
  it("refuses a non-structural schema with the violations", async () => {
    const crd = gadgetCrd();
    crd.metadata = { name: "things.schema.example.com" };
    crd.spec!.names = { plural: "things", singular: "thing", kind: "Thing" };
    crd.spec!.versions![0]!.schema!.openAPIV3Schema = { type: "object", properties: { spec: { properties: { a: { type: "string" } } } } };
    const res = await t.call("POST", CRDS, { body: crd });
    expect(res.status).toBe(422);
    expect(res.json.details.causes).toContainEqual({
      reason: "FieldValueRequired",
      message: "Required value: must not be empty for specified object fields",
      field: "spec.versions[0].schema.openAPIV3Schema.properties[spec].type",
    });
  });

  it("refuses a default of the wrong type and unknown fields in a default", async () => {
    const crd = gadgetCrd();
    crd.metadata = { name: "things.schema.example.com" };
    crd.spec!.names = { plural: "things", singular: "thing", kind: "Thing" };
    crd.spec!.versions![0]!.schema!.openAPIV3Schema = {
      type: "object",
      properties: { spec: { type: "object", default: { bogus: true }, properties: { n: { type: "integer", default: "x" } } } },
    };
    const res = await t.call("POST", CRDS, { body: crd });
    expect(res.status).toBe(422);
    expect(res.json.details.causes.map((c: { field: string }) => c.field)).toEqual([
      "spec.versions[0].schema.openAPIV3Schema.properties[spec].default",
      "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[n].default",
    ]);
    expect(res.json.details.causes[0].message).toBe(`Invalid value: {"bogus":true}: must not have unknown fields`);
  });
});
