/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any -- tests read arbitrary JSON responses */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ResourceDefinition } from "../registry/rest/resource-definition.js";
import { createResourceStore } from "../registry/store.js";
import { selectBuiltinResources } from "../control-plane/builtin-resources.js";
import { startTestPlane, type TestPlane } from "./test-support.js";

const widgets: ResourceDefinition = {
  group: "example.com",
  version: "v1",
  kind: "Widget",
  plural: "widgets",
  singular: "widget",
  scope: "Namespaced",
  shortNames: ["wd"],
  schema: {
    type: "object",
    properties: {
      apiVersion: { type: "string" },
      kind: { type: "string" },
      metadata: { type: "object" },
      spec: { type: "object", properties: { size: { type: "integer" } } },
    },
  },
  printerColumns: [{ name: "Size", type: "integer", cell: (o) => (o["spec"] as { size?: number } | undefined)?.size }],
  strategy: {
    validate: (o) => {
      const size = (o["spec"] as { size?: number } | undefined)?.size;
      return size !== undefined && size < 0
        ? [{ type: "FieldValueInvalid", field: "spec.size", detail: "must be non-negative", value: size }]
        : [];
    },
  },
};

let t: TestPlane;
beforeAll(async () => {
  t = await startTestPlane({ resources: [...selectBuiltinResources(["namespaces", "configmaps"]), widgets] });
});
afterAll(async () => {
  await t.close();
});

describe("consumer-defined resources", () => {
  it("serves only the chosen built-ins plus the consumer's types", async () => {
    const core = await t.call("GET", "/api/v1");
    expect(core.json.resources.map((r: any) => r.name).sort()).toEqual([
      "configmaps",
      "namespaces",
      "namespaces/finalize",
      "namespaces/status",
    ]);
    expect((await t.call("GET", "/api/v1/namespaces/default/secrets")).status).toBe(404);
    const group = await t.call("GET", "/apis/example.com/v1");
    expect(group.json.resources).toEqual([
      expect.objectContaining({ name: "widgets", kind: "Widget", namespaced: true, shortNames: ["wd"] }),
    ]);
  });

  it("runs CRUD, validation, unknown-field checks and tables for them", async () => {
    const path = "/apis/example.com/v1/namespaces/default/widgets";
    const created = await t.call("POST", path, { body: { metadata: { name: "w1" }, spec: { size: 3 } } });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ apiVersion: "example.com/v1", kind: "Widget", spec: { size: 3 } });
    const invalid = await t.call("POST", path, { body: { metadata: { name: "w2" }, spec: { size: -1 } } });
    expect(invalid.status).toBe(422);
    const strict = await t.call("POST", `${path}?fieldValidation=Strict`, { body: { metadata: { name: "w3" }, spec: { color: "red" } } });
    expect(strict.json.message).toBe('strict decoding error: unknown field "spec.color"');
    const table = await t.call("GET", path, { headers: { Accept: "application/json;as=Table;v=v1;g=meta.k8s.io" } });
    expect(table.json.columnDefinitions.map((c: any) => c.name)).toEqual(["Name", "Size"]);
    expect(table.json.rows[0].cells).toEqual(["w1", 3]);
    expect((await t.call("GET", "/apis/example.com/v1/namespaces/missing/widgets/w1")).status).toBe(404);
  });

  it("serves a subresource with its own storage for the verbs its definition declares", async () => {
    // Like pods/resize: GET, PUT and PATCH, each write through a store whose strategy keeps only spec.size.
    const sized: ResourceDefinition = {
      ...widgets,
      kind: "Sized",
      plural: "sizeds",
      singular: "sized",
      shortNames: [],
      subresources: [{ name: "resize", verbs: ["get", "update", "patch"] }],
    };
    const resize = createResourceStore(
      { ...sized, strategy: { prepareForUpdate: (o) => void delete o.metadata?.labels } },
      t.plane.storage,
    );
    t.plane.server.addResource({ definition: sized, store: createResourceStore(sized, t.plane.storage), subresources: { resize } });
    const path = "/apis/example.com/v1/namespaces/default/sizeds";
    expect((await t.call("POST", path, { body: { metadata: { name: "s1" }, spec: { size: 1 } } })).status).toBe(201);
    expect((await t.call("GET", `${path}/s1/resize`)).json.spec).toEqual({ size: 1 });
    const patched = await t.call("PATCH", `${path}/s1/resize`, {
      body: { metadata: { labels: { dropped: "yes" } }, spec: { size: 2 } },
      headers: { "Content-Type": "application/merge-patch+json" },
    });
    expect(patched.status).toBe(200);
    expect(patched.json.spec).toEqual({ size: 2 });
    expect(patched.json.metadata.labels).toBeUndefined();
    expect((await t.call("DELETE", `${path}/s1/resize`)).status).toBe(405);
    // Without a declaration a subresource store takes PUT only, like namespaces/finalize.
    expect(
      (
        await t.call("PATCH", "/api/v1/namespaces/default/finalize", {
          body: {},
          headers: { "Content-Type": "application/merge-patch+json" },
        })
      ).status,
    ).toBe(405);
    t.plane.server.removeResource("example.com", "v1", "sizeds");
  });

  it("publishes a resource added at run time in discovery and OpenAPI", async () => {
    const gadgets: ResourceDefinition = {
      ...widgets,
      kind: "Gadget",
      plural: "gadgets",
      singular: "gadget",
      shortNames: [],
      scope: "Cluster",
      printerColumns: [],
    };
    t.plane.server.addResource({ definition: gadgets, store: createResourceStore(gadgets, t.plane.storage) });
    const group = await t.call("GET", "/apis/example.com/v1");
    expect(group.json.resources.map((r: any) => r.name).sort()).toEqual(["gadgets", "widgets"]);
    const openapi = await t.call("GET", "/openapi/v3");
    const doc = await t.call("GET", openapi.json.paths["apis/example.com/v1"].serverRelativeURL);
    expect(Object.keys(doc.json.paths)).toContain("/apis/example.com/v1/gadgets");
    expect((await t.call("POST", "/apis/example.com/v1/gadgets", { body: { metadata: { name: "g1" } } })).status).toBe(201);
    const watch = await fetch(`${t.url}/apis/example.com/v1/gadgets?watch=true&resourceVersion=0`);
    const reader = watch.body!.getReader();
    const drained = (async () => {
      for (;;) if ((await reader.read()).done) return "ended";
    })();
    t.plane.server.removeResource("example.com", "v1", "gadgets");
    expect(await drained).toBe("ended");
    expect((await t.call("GET", "/apis/example.com/v1/gadgets")).status).toBe(404);
    expect((await t.call("GET", "/apis/example.com/v1")).json.resources.map((r: any) => r.name)).toEqual(["widgets"]);
  });
});
