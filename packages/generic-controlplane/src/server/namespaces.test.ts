/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call -- tests read arbitrary JSON responses */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configMap, startTestPlane, type TestPlane } from "./test-support.js";

let t: TestPlane;
beforeAll(async () => {
  t = await startTestPlane();
});
afterAll(async () => {
  await t.close();
});

describe("namespaces", () => {
  it("exist at start: default, kube-system, kube-public, kube-node-lease", async () => {
    const r = await t.call("GET", "/api/v1/namespaces");
    const names = r.json.items.map((i: { metadata: { name: string } }) => i.metadata.name).sort();
    expect(names).toEqual(["default", "kube-node-lease", "kube-public", "kube-system"]);
    expect(r.json.items[0].status.phase).toBe("Active");
  });

  it("the first three cannot be deleted (403)", async () => {
    for (const name of ["default", "kube-system", "kube-public"]) {
      const r = await t.call("DELETE", `/api/v1/namespaces/${name}`);
      expect(r.status).toBe(403);
      expect(r.json).toMatchObject({ reason: "Forbidden", message: `namespaces "${name}" is forbidden: this namespace may not be deleted` });
    }
  });

  it("DELETE makes a namespace Terminating; creates in it get 403 NamespaceTerminating; /finalize removes it", async () => {
    expect((await t.call("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "doomed" } } })).status).toBe(201);
    expect((await t.call("POST", "/api/v1/namespaces/doomed/configmaps", { body: configMap("inside") })).status).toBe(201);

    const del = await t.call("DELETE", "/api/v1/namespaces/doomed");
    expect(del.status).toBe(200);
    expect(del.json).toMatchObject({ kind: "Namespace", status: { phase: "Terminating" }, spec: { finalizers: ["kubernetes"] } });
    expect(del.json.metadata.deletionTimestamp).toBeTruthy();

    const create = await t.call("POST", "/api/v1/namespaces/doomed/configmaps", { body: configMap("late") });
    expect(create.status).toBe(403);
    expect(create.json.message).toBe('configmaps "late" is forbidden: unable to create new content in namespace doomed because it is being terminated');
    expect(create.json.details.causes).toEqual([{ reason: "NamespaceTerminating", message: "namespace doomed is being terminated", field: "metadata.namespace" }]);

    const still = await t.call("GET", "/api/v1/namespaces/doomed");
    expect(still.json.status.phase).toBe("Terminating");

    const finalize = await t.call("PUT", "/api/v1/namespaces/doomed/finalize", { body: { ...still.json, spec: { finalizers: [] } } });
    expect(finalize.status).toBe(200);
    expect((await t.call("GET", "/api/v1/namespaces/doomed")).status).toBe(404);
  });

  it("has no deletecollection, and honours DELETE preconditions", async () => {
    expect((await t.call("DELETE", "/api/v1/namespaces")).status).toBe(405);
    expect((await t.call("GET", "/api/v1/namespaces/default")).status).toBe(200);
    await t.call("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "guarded" } } });
    const uid = await t.call("DELETE", "/api/v1/namespaces/guarded", { body: { preconditions: { uid: "not-it" } } });
    expect(uid.status).toBe(409);
    const rv = await t.call("DELETE", "/api/v1/namespaces/guarded", { body: { preconditions: { resourceVersion: "1" } } });
    expect(rv.status).toBe(409);
    expect((await t.call("GET", "/api/v1/namespaces/guarded")).json.status.phase).toBe("Active");
  });

  it("a namespace without spec finalizers goes at once", async () => {
    await t.call("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "quick" } } });
    await t.call("PUT", "/api/v1/namespaces/quick/finalize", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "quick" }, spec: { finalizers: [] } } });
    const del = await t.call("DELETE", "/api/v1/namespaces/quick");
    expect(del.status).toBe(200);
    expect(del.json).toMatchObject({ kind: "Status", status: "Success", details: { name: "quick", kind: "namespaces" } });
    expect((await t.call("GET", "/api/v1/namespaces/quick")).status).toBe(404);
  });

  it("serves /status of a namespace and a cluster-scoped resource is not addressable inside a namespace", async () => {
    const status = await t.call("GET", "/api/v1/namespaces/default/status");
    expect(status.status).toBe(200);
    expect(status.json.metadata.name).toBe("default");
    expect((await t.call("GET", "/api/v1/namespaces/default/namespaces/x")).status).toBe(404);
  });
});
