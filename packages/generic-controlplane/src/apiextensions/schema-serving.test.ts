/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-return -- tests read arbitrary JSON responses */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlane, type TestPlane } from "../server/test-support.js";
import { establish, eventually, widgetCrd } from "./test-fixtures.js";

const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const MERGE = { "Content-Type": "application/merge-patch+json" };

let t: TestPlane;
beforeAll(async () => {
  t = await startTestPlane();
});
afterAll(async () => {
  await t.close();
});

describe("custom resources against their CRD's schema", () => {
  it("defaults on requests and from storage (CustomResourceDefinition defaulting)", async () => {
    const crd = widgetCrd({ group: "defaulting.example.com", plural: "cogs", kind: "Cog" });
    crd.spec!.versions![0]!.schema!.openAPIV3Schema!.properties!["spec"]!.properties!["a"] = { type: "string", default: "A" };
    await establish(t, crd);
    const cogs = "/apis/defaulting.example.com/v1/namespaces/default/cogs";
    const created = await t.call("POST", cogs, { body: { metadata: { name: "c1" }, spec: { color: "red" } } });
    expect(created.status).toBe(201);
    expect(created.json.spec).toEqual({ color: "red", a: "A" });

    // A default added later shows on objects stored before it, without any write.
    const current = (await t.call("GET", `${CRDS}/cogs.defaulting.example.com`)).json;
    current.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.b = { type: "string", default: "B" };
    expect((await t.call("PUT", `${CRDS}/cogs.defaulting.example.com`, { body: current })).status).toBe(200);
    const read = await eventually("the new default on read", async () => {
      const cog = (await t.call("GET", `${cogs}/c1`)).json;
      return cog.spec.b === "B" ? cog : undefined;
    });
    expect(read.spec).toEqual({ color: "red", a: "A", b: "B" });
    const stored = JSON.parse((await t.plane.storage.get("/registry/defaulting.example.com/cogs/default/c1"))!.value);
    expect(stored.spec.b).toBeUndefined();
  });

  it("rejects values of the wrong type or out of the schema's bounds with a 422 naming the field", async () => {
    const crd = widgetCrd({ group: "validation.example.com", plural: "levers", kind: "Lever" });
    crd.spec!.versions![0]!.schema!.openAPIV3Schema!.properties!["spec"]!.properties!["color"] = { type: "string", enum: ["red", "blue"] };
    await establish(t, crd);
    const levers = "/apis/validation.example.com/v1/namespaces/default/levers";
    const wrongType = await t.call("POST", levers, { body: { metadata: { name: "l1" }, spec: { replicas: "three" } } });
    expect(wrongType.status).toBe(422);
    expect(wrongType.json.details.causes).toContainEqual({
      reason: "FieldValueTypeInvalid",
      field: "spec.replicas",
      message: 'Invalid value: "string": spec.replicas in body must be of type integer: "string"',
    });
    const notInEnum = await t.call("POST", levers, { body: { metadata: { name: "l2" }, spec: { color: "green" } } });
    expect(notInEnum.status).toBe(422);
    expect(notInEnum.json.message).toBe(
      'Lever.validation.example.com "l2" is invalid: spec.color: Unsupported value: "green": supported values: "red", "blue"',
    );
    expect((await t.call("GET", `${levers}/l2`)).status).toBe(404);
  });

  it("prunes unknown fields, and reports them with fieldValidation=Strict", async () => {
    const crd = widgetCrd({ group: "pruning.example.com", plural: "pulleys", kind: "Pulley" });
    await establish(t, crd);
    const pulleys = "/apis/pruning.example.com/v1/namespaces/default/pulleys";
    const pruned = await t.call("POST", pulleys, { body: { metadata: { name: "p1" }, spec: { color: "red", unknown: 1 }, extra: true } });
    expect(pruned.status).toBe(201);
    expect(pruned.json.spec).toEqual({ color: "red" });
    expect(pruned.json.extra).toBeUndefined();
    const strict = await t.call("POST", `${pulleys}?fieldValidation=Strict`, { body: { metadata: { name: "p2" }, spec: { unknown: 1 } } });
    expect(strict.status).toBe(400);
    expect(strict.json.message).toBe('strict decoding error: unknown field "spec.unknown"');
    const patched = await t.call("PATCH", `${pulleys}/p1`, { body: { spec: { another: 2 } }, headers: MERGE });
    expect(patched.json.spec).toEqual({ color: "red" });
  });

  it("checks x-kubernetes-validations rules, with oldSelf on updates", async () => {
    const crd = widgetCrd({ group: "rules.example.com", plural: "gauges", kind: "Gauge" });
    const spec = crd.spec!.versions![0]!.schema!.openAPIV3Schema!.properties!["spec"]!;
    spec["x-kubernetes-validations"] = [
      { rule: "self.replicas <= 10", message: "replicas must be at most 10" },
      { rule: "!has(oldSelf.color) || self.color == oldSelf.color", message: "color is immutable" },
    ];
    await establish(t, crd);
    const gauges = "/apis/rules.example.com/v1/namespaces/default/gauges";
    const tooMany = await t.call("POST", gauges, { body: { metadata: { name: "g1" }, spec: { replicas: 11, color: "red" } } });
    expect(tooMany.status).toBe(422);
    expect(tooMany.json.message).toBe(
      'Gauge.rules.example.com "g1" is invalid: spec: Invalid value: "object": replicas must be at most 10',
    );
    expect((await t.call("POST", gauges, { body: { metadata: { name: "g1" }, spec: { replicas: 1, color: "red" } } })).status).toBe(201);
    const recolored = await t.call("PATCH", `${gauges}/g1`, { body: { spec: { color: "blue" } }, headers: MERGE });
    expect(recolored.status).toBe(422);
    expect(recolored.json.message).toBe('Gauge.rules.example.com "g1" is invalid: spec: Invalid value: "object": color is immutable');
  });

  it("refuses a CRD whose schema is not structural", async () => {
    const crd = widgetCrd({ group: "structural.example.com", plural: "axles", kind: "Axle" });
    delete crd.spec!.versions![0]!.schema!.openAPIV3Schema!.properties!["spec"]!.type;
    delete crd.spec!.versions![0]!.selectableFields;
    const response = await t.call("POST", CRDS, { body: crd });
    expect(response.status).toBe(422);
    expect(response.json.details.causes).toContainEqual({
      reason: "FieldValueRequired",
      field: "spec.versions[0].schema.openAPIV3Schema.properties[spec].type",
      message: "Required value: must not be empty for specified object fields",
    });
  });
});
