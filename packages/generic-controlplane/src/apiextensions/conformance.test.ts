/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any -- tests read arbitrary JSON responses */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlane, type TestPlane } from "../server/test-support.js";
import { establish, watchReader, widgetCrd } from "./test-fixtures.js";

/**
 * Assertions of upstream's conformance tests `test/e2e/apimachinery/custom_resource_definition.go`
 * and `crd_selectable_fields.go`, against the in-process server.
 */

const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const MERGE = { "Content-Type": "application/merge-patch+json" };

let t: TestPlane;
beforeAll(async () => {
  t = await startTestPlane();
});
afterAll(async () => {
  await t.close();
});

describe("[sig-api-machinery] CustomResourceDefinition resources [Privileged:ClusterAdmin]", () => {
  it("Simple CustomResourceDefinition creating/deleting custom resource definition objects works", async () => {
    const crd = widgetCrd({ group: "simple.example.com", plural: "simples", kind: "Simple" });
    expect((await t.call("POST", CRDS, { body: crd })).status).toBe(201);
    const deleted = await t.call("DELETE", `${CRDS}/simples.simple.example.com`);
    expect(deleted.status).toBe(200);
    const gone = await t.call("GET", `${CRDS}/simples.simple.example.com`);
    // Deleted at once or still cleaning up: either way it is on its way out.
    expect(gone.status === 404 || gone.json.metadata.deletionTimestamp !== undefined).toBe(true);
  });

  it("Simple CustomResourceDefinition listing custom resource definition objects works", async () => {
    for (let i = 0; i < 10; i++) {
      const crd = widgetCrd({ group: "listing.example.com", plural: `lists${i}`, kind: `List${i}x`, shortNames: [] });
      crd.metadata!.labels = { "e2e-list-test-uuid": "abc" };
      expect((await t.call("POST", CRDS, { body: crd })).status).toBe(201);
    }
    const other = widgetCrd({ group: "listing.example.com", plural: "others", kind: "Other", shortNames: [] });
    expect((await t.call("POST", CRDS, { body: other })).status).toBe(201);
    const listed = await t.call("GET", `${CRDS}?labelSelector=e2e-list-test-uuid%3Dabc`);
    expect(listed.json.items).toHaveLength(10);
    const deleted = await t.call("DELETE", `${CRDS}?labelSelector=e2e-list-test-uuid%3Dabc`);
    expect(deleted.status).toBe(200);
    expect(deleted.json.items).toHaveLength(10);
    const remaining = (await t.call("GET", CRDS)).json.items.filter(
      (c: any) => c.spec.group === "listing.example.com" && c.metadata.deletionTimestamp === undefined,
    );
    expect(remaining.map((c: any) => c.metadata.name)).toEqual(["others.listing.example.com"]);
  });

  it("Simple CustomResourceDefinition getting/updating/patching custom resource definition status sub-resource works", async () => {
    const crd = widgetCrd({ group: "status.example.com", plural: "statuses", kind: "StatusThing" });
    expect((await t.call("POST", CRDS, { body: crd })).status).toBe(201);
    const status = await t.call("GET", `${CRDS}/statuses.status.example.com/status`);
    expect(status.status).toBe(200);
    expect(status.json.kind).toBe("CustomResourceDefinition");
    const updated = structuredClone(status.json);
    updated.status.conditions = [
      ...(updated.status.conditions ?? []),
      { type: "StatusUpdated", status: "True", reason: "E2E", message: "Set from e2e test" },
    ];
    const put = await t.call("PUT", `${CRDS}/statuses.status.example.com/status`, { body: updated });
    expect(put.status).toBe(200);
    expect(put.json.status.conditions).toContainEqual(expect.objectContaining({ type: "StatusUpdated", status: "True" }));
    const patched = await t.call("PATCH", `${CRDS}/statuses.status.example.com/status`, {
      body: { status: { conditions: [{ type: "StatusPatched", status: "True", reason: "E2E", message: "Set from e2e test" }] } },
      headers: MERGE,
    });
    expect(patched.status).toBe(200);
    expect(patched.json.status.conditions).toContainEqual(expect.objectContaining({ type: "StatusPatched", status: "True" }));
    // A status write leaves the spec alone.
    expect(patched.json.spec.group).toBe("status.example.com");
  });

  it("should include custom resource definition resources in discovery documents", async () => {
    const groups = (await t.call("GET", "/apis")).json;
    const group = groups.groups.find((g: any) => g.name === "apiextensions.k8s.io");
    expect(group).toMatchObject({
      preferredVersion: { groupVersion: "apiextensions.k8s.io/v1", version: "v1" },
      versions: [{ groupVersion: "apiextensions.k8s.io/v1", version: "v1" }],
    });
    const groupDoc = (await t.call("GET", "/apis/apiextensions.k8s.io")).json;
    expect(groupDoc.preferredVersion.version).toBe("v1");
    const resources = (await t.call("GET", "/apis/apiextensions.k8s.io/v1")).json.resources;
    expect(resources.find((r: any) => r.name === "customresourcedefinitions")).toMatchObject({
      kind: "CustomResourceDefinition",
      namespaced: false,
      shortNames: ["crd", "crds"],
    });
    expect(resources.map((r: any) => r.name)).toContain("customresourcedefinitions/status");
  });

  it("[Serial] should be able to create and watch custom resource definitions (CustomResourceDefinition Watch)", async () => {
    const response = await fetch(`${t.url}${CRDS}?watch=true&fieldSelector=metadata.name%3Dwatched.watching.example.com`);
    const { next, cancel } = watchReader(response);
    const crd = widgetCrd({ group: "watching.example.com", plural: "watched", kind: "Watched" });
    await t.call("POST", CRDS, { body: crd });
    expect(await next()).toMatchObject({ type: "ADDED", object: { metadata: { name: "watched.watching.example.com" } } });
    // Status changes from naming and establishing arrive as modifications.
    expect(await next()).toMatchObject({ type: "MODIFIED" });
    await t.call("DELETE", `${CRDS}/watched.watching.example.com`);
    for (;;) {
      const event = await next();
      if (event.type === "DELETED") {
        expect(event.object.metadata.name).toBe("watched.watching.example.com");
        break;
      }
      expect(event.type).toBe("MODIFIED");
    }
    await cancel();
  });

  it("CustomResourceFieldSelectors MUST list and watch custom resources matching the field selector", async () => {
    const crd = widgetCrd({ group: "selectable.example.com", plural: "pickers", kind: "Picker" });
    crd.spec!.versions![0]!.schema!.openAPIV3Schema!.properties!["spec"]!.properties!["host"] = { type: "string" };
    crd.spec!.versions![0]!.selectableFields = [{ jsonPath: ".spec.color" }, { jsonPath: ".spec.host" }];
    await establish(t, crd);
    const pickers = "/apis/selectable.example.com/v1/namespaces/default/pickers";
    const response = await fetch(`${t.url}${pickers}?watch=true&fieldSelector=spec.host%3Dhost1`);
    const { next, cancel } = watchReader(response);
    await t.call("POST", pickers, { body: { metadata: { name: "p1" }, spec: { color: "red", host: "host1" } } });
    await t.call("POST", pickers, { body: { metadata: { name: "p2" }, spec: { color: "red", host: "host2" } } });
    expect(await next()).toMatchObject({ type: "ADDED", object: { metadata: { name: "p1" } } });
    const list = await t.call("GET", `${pickers}?fieldSelector=spec.color%3Dred,spec.host%21%3Dhost1`);
    expect(list.json.items.map((p: any) => p.metadata.name)).toEqual(["p2"]);
    // Leaving the selection is a DELETED event for the watcher, as for any field selector.
    await t.call("PATCH", `${pickers}/p1`, { body: { spec: { host: "host3" } }, headers: MERGE });
    expect(await next()).toMatchObject({ type: "DELETED", object: { metadata: { name: "p1" } } });
    await cancel();
  });

  it("refuses selectableFields that do not name a string, integer or boolean field", async () => {
    const crd = widgetCrd({ group: "badselect.example.com", plural: "badpickers", kind: "BadPicker" });
    crd.spec!.versions![0]!.selectableFields = [{ jsonPath: ".spec.ports" }, { jsonPath: ".spec.missing" }, { jsonPath: ".metadata.name" }];
    const response = await t.call("POST", CRDS, { body: crd });
    expect(response.status).toBe(422);
    const causes = response.json.details.causes.map((c: any) => `${c.field}: ${c.message}`);
    expect(causes).toEqual(
      expect.arrayContaining([
        'spec.versions[0].selectableFields[0].jsonPath: Invalid value: ".spec.ports": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.',
        'spec.versions[0].selectableFields[1].jsonPath: Invalid value: ".spec.missing": is an invalid path: does not refer to a valid field',
        'spec.versions[0].selectableFields[2].jsonPath: Invalid value: ".metadata.name": is an invalid path: does not refer to a valid field',
      ]),
    );
  });
});
