/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any -- tests read arbitrary JSON responses */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlane, type TestPlane } from "../server/test-support.js";
import { establish, eventually, widgetCrd } from "./test-fixtures.js";

const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const WIDGETS = "/apis/example.com/v1/namespaces/default/widgets";
const MERGE = { "Content-Type": "application/merge-patch+json" };

let t: TestPlane;
beforeAll(async () => {
  t = await startTestPlane();
  await establish(t, widgetCrd());
});
afterAll(async () => {
  await t.close();
});

describe("a CustomResourceDefinition", () => {
  it("is accepted with upstream's status: names, conditions and stored versions", async () => {
    const crd = (await t.call("GET", `${CRDS}/widgets.example.com`)).json;
    expect(crd.status.acceptedNames).toEqual({
      plural: "widgets",
      singular: "widget",
      shortNames: ["wd"],
      kind: "Widget",
      listKind: "WidgetList",
      categories: [],
    });
    expect(crd.status.storedVersions).toEqual(["v1"]);
    const conditions = Object.fromEntries(crd.status.conditions.map((c: any) => [c.type, c]));
    expect(conditions.NamesAccepted).toMatchObject({ status: "True", reason: "NoConflicts", message: "no conflicts found" });
    expect(conditions.Established).toMatchObject({
      status: "True",
      reason: "InitialNamesAccepted",
      message: "the initial names have been accepted",
    });
    expect(crd.spec.conversion).toEqual({ strategy: "None" });
    expect(crd.metadata.generation).toBe(1);
  });

  it("serves its custom resources: CRUD, generation, kind and apiVersion", async () => {
    const created = await t.call("POST", WIDGETS, {
      body: { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w1" }, spec: { color: "blue", replicas: 1 } },
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w1", namespace: "default", generation: 1 },
      spec: { color: "blue", replicas: 1 },
    });
    const got = await t.call("GET", `${WIDGETS}/w1`);
    expect(got.json.spec.color).toBe("blue");
    const patched = await t.call("PATCH", `${WIDGETS}/w1`, { body: { spec: { color: "red" } }, headers: MERGE });
    expect(patched.json.metadata.generation).toBe(2);
    const list = await t.call("GET", "/apis/example.com/v1/widgets");
    expect(list.json).toMatchObject({ apiVersion: "example.com/v1", kind: "WidgetList" });
    expect(list.json.items.map((w: any) => w.metadata.name)).toContain("w1");
    expect((await t.call("DELETE", `${WIDGETS}/w1`)).status).toBe(200);
    expect((await t.call("GET", `${WIDGETS}/w1`)).status).toBe(404);
  });

  it("answers strategic merge patch on a custom resource with 415 and takes JSON and merge patches", async () => {
    await t.call("POST", WIDGETS, { body: { metadata: { name: "smp" }, spec: { color: "blue" } } });
    const smp = await t.call("PATCH", `${WIDGETS}/smp`, {
      body: { spec: { color: "red" } },
      headers: { "Content-Type": "application/strategic-merge-patch+json" },
    });
    expect(smp.status).toBe(415);
    expect(smp.json).toMatchObject({ reason: "UnsupportedMediaType" });
    expect(smp.json.message).toContain("application/merge-patch+json");
    expect(smp.json.message).not.toContain("strategic");
    const json = await t.call("PATCH", `${WIDGETS}/smp`, {
      body: [{ op: "replace", path: "/spec/color", value: "green" }],
      headers: { "Content-Type": "application/json-patch+json" },
    });
    expect(json.json.spec.color).toBe("green");
  });

  it("keeps status and spec apart through the status subresource; status writes do not bump generation", async () => {
    await t.call("POST", WIDGETS, { body: { metadata: { name: "st" }, spec: { color: "blue" }, status: { phase: "ignored" } } });
    const created = (await t.call("GET", `${WIDGETS}/st`)).json;
    expect(created.status).toBeUndefined();
    const status = await t.call("PATCH", `${WIDGETS}/st/status`, {
      body: { spec: { color: "ignored" }, status: { phase: "Ready" } },
      headers: MERGE,
    });
    expect(status.status).toBe(200);
    expect(status.json.status.phase).toBe("Ready");
    expect(status.json.spec.color).toBe("blue");
    expect(status.json.metadata.generation).toBe(1);
    const main = await t.call("PUT", `${WIDGETS}/st`, { body: { ...status.json, spec: { color: "red" }, status: { phase: "ignored" } } });
    expect(main.json.status.phase).toBe("Ready");
    expect(main.json.metadata.generation).toBe(2);
  });

  it("prints its additionalPrinterColumns in the Table form", async () => {
    await t.call("POST", WIDGETS, { body: { metadata: { name: "tab" }, spec: { color: "teal", replicas: 3 } } });
    const table = await t.call("GET", `${WIDGETS}/tab`, { headers: { Accept: "application/json;as=Table;v=v1;g=meta.k8s.io" } });
    expect(table.json.columnDefinitions.map((c: any) => [c.name, c.type])).toEqual([
      ["Name", "string"],
      ["Color", "string"],
      ["Replicas", "integer"],
      ["Age", "string"],
    ]);
    expect(table.json.rows[0].cells.slice(0, 3)).toEqual(["tab", "teal", 3]);
  });

  it("selects custom resources by selectableFields in lists and watches", async () => {
    await t.call("POST", WIDGETS, { body: { metadata: { name: "sel-a" }, spec: { color: "amber" } } });
    await t.call("POST", WIDGETS, { body: { metadata: { name: "sel-b" }, spec: { color: "brown" } } });
    const list = await t.call("GET", `${WIDGETS}?fieldSelector=spec.color%3Damber`);
    expect(list.json.items.map((w: any) => w.metadata.name)).toEqual(["sel-a"]);
    const unsupported = await t.call("GET", `${WIDGETS}?fieldSelector=spec.replicas%3D1`);
    expect(unsupported.status).toBe(400);
    expect(unsupported.json.message).toBe("field label not supported: spec.replicas");
  });

  it("scales through the scale subresource as autoscaling/v1 Scale", async () => {
    await t.call("POST", WIDGETS, { body: { metadata: { name: "sc" }, spec: { replicas: 1 } } });
    await t.call("PATCH", `${WIDGETS}/sc/status`, { body: { status: { replicas: 1, selector: "app=sc" } }, headers: MERGE });
    const scale = await t.call("GET", `${WIDGETS}/sc/scale`);
    expect(scale.json).toMatchObject({
      apiVersion: "autoscaling/v1",
      kind: "Scale",
      metadata: { name: "sc", namespace: "default" },
      spec: { replicas: 1 },
      status: { replicas: 1, selector: "app=sc" },
    });
    const patched = await t.call("PATCH", `${WIDGETS}/sc/scale`, { body: { spec: { replicas: 5 } }, headers: MERGE });
    expect(patched.status).toBe(200);
    expect(patched.json.spec.replicas).toBe(5);
    expect((await t.call("GET", `${WIDGETS}/sc`)).json.spec.replicas).toBe(5);
    const negative = await t.call("PATCH", `${WIDGETS}/sc/scale`, { body: { spec: { replicas: -1 } }, headers: MERGE });
    expect(negative.status).toBe(422);
    expect(negative.json.message).toBe(
      'Scale.autoscaling "sc" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    );
    const discovery = await t.call("GET", "/apis/example.com/v1");
    expect(discovery.json.resources.map((r: any) => r.name).sort()).toEqual(["widgets", "widgets/scale", "widgets/status"]);
  });

  it("rejects a replica count at specReplicasPath that is not an integer", async () => {
    const bad = await t.call("POST", WIDGETS, { body: { metadata: { name: "bad-replicas" }, spec: { replicas: -2 } } });
    expect(bad.status).toBe(422);
    expect(bad.json.message).toBe(
      'Widget.example.com "bad-replicas" is invalid: .spec.replicas: Invalid value: -2: should be a non-negative integer',
    );
  });
});

describe("CustomResourceDefinition validation", () => {
  it("names the field and rule of each problem, as upstream does", async () => {
    const crd = widgetCrd({ plural: "gizmos", kind: "Gizmo" });
    crd.metadata!.name = "wrong.example.com";
    crd.spec!.group = "example";
    crd.spec!.versions!.push({ ...crd.spec!.versions![0]!, name: "V2" });
    crd.spec!.versions![0]!.additionalPrinterColumns = [{ name: "X", type: "text", jsonPath: "spec.x" }];
    const response = await t.call("POST", CRDS, { body: crd });
    expect(response.status).toBe(422);
    const causes = response.json.details.causes.map((c: any) => `${c.field}: ${c.message}`);
    expect(causes).toEqual(
      expect.arrayContaining([
        'metadata.name: Invalid value: "wrong.example.com": must be spec.names.plural+"."+spec.group',
        'spec.group: Invalid value: "example": should be a domain with at least one dot',
        expect.stringMatching(/^spec\.versions\[1\]\.name: Invalid value: "V2": a DNS-1035 label must consist of/),
        'spec.versions[0].additionalPrinterColumns[0].type: Invalid value: "text": must be one of boolean,date,integer,number,string',
        'spec.versions[0].additionalPrinterColumns[0].jsonPath: Invalid value: "spec.x": must be a simple json path starting with .',
        expect.stringMatching(/^spec\.versions: Invalid value: .*: must have exactly one version marked as storage version$/),
      ]),
    );
  });

  it("keeps scope and kind once Established, and group and plural always", async () => {
    const current = (await t.call("GET", `${CRDS}/widgets.example.com`)).json;
    const changed = structuredClone(current);
    changed.spec.scope = "Cluster";
    changed.spec.names.kind = "Gadget";
    const response = await t.call("PUT", `${CRDS}/widgets.example.com`, { body: changed });
    expect(response.status).toBe(422);
    expect(response.json.message).toContain('spec.scope: Invalid value: "Cluster": field is immutable');
    expect(response.json.message).toContain('spec.names.kind: Invalid value: "Gadget": field is immutable');
  });

  it("requires a schema for each version and a webhook for Webhook conversion", async () => {
    const crd = widgetCrd({ plural: "sprockets", kind: "Sprocket" });
    delete crd.spec!.versions![0]!.schema;
    delete crd.spec!.versions![0]!.selectableFields;
    crd.spec!.conversion = { strategy: "Webhook" };
    const response = await t.call("POST", CRDS, { body: crd });
    const causes = response.json.details.causes.map((c: any) => `${c.field}: ${c.message}`);
    expect(causes).toEqual(
      expect.arrayContaining([
        "spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required",
        "spec.conversion.webhook: Required value: required when strategy is set to Webhook",
      ]),
    );
  });
});

describe("names of CRDs in one group", () => {
  it("refuses a kind another CRD holds with NamesAccepted False, and accepts it once that CRD is gone", async () => {
    const first = widgetCrd({ group: "names.example.com", plural: "first", kind: "Thing", shortNames: [] });
    await establish(t, first);
    const second = widgetCrd({ group: "names.example.com", plural: "second", kind: "Thing", shortNames: [] });
    expect((await t.call("POST", CRDS, { body: second })).status).toBe(201);
    const refused = await eventually("second to be refused", async () => {
      const crd = (await t.call("GET", `${CRDS}/second.names.example.com`)).json;
      return crd.status?.conditions?.find((c: any) => c.type === "NamesAccepted" && c.status === "False") ? crd : undefined;
    });
    const conditions = Object.fromEntries(refused.status.conditions.map((c: any) => [c.type, c]));
    // Each clash overwrites the condition, so the last one checked (listKind) is the one reported, as upstream.
    expect(conditions.NamesAccepted).toMatchObject({ reason: "ListKindConflict", message: '"ThingList" is already in use' });
    expect(conditions.Established).toMatchObject({ status: "False", reason: "NotAccepted", message: "not all names are accepted" });
    expect(refused.status.acceptedNames.kind).toBeUndefined();
    expect((await t.call("GET", "/apis/names.example.com/v1/second")).status).toBe(404);

    expect((await t.call("DELETE", `${CRDS}/first.names.example.com`)).status).toBe(200);
    await eventually("second to be Established", async () => {
      const crd = (await t.call("GET", `${CRDS}/second.names.example.com`)).json;
      return crd.status?.conditions?.some((c: any) => c.type === "Established" && c.status === "True") ? true : undefined;
    });
    expect((await t.call("GET", "/apis/names.example.com/v1/second")).status).toBe(200);
  });
});
