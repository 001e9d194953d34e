/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call -- tests read arbitrary JSON responses */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AdmissionPlugin } from "../admission/types.js";
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
      expect(r.json).toMatchObject({
        reason: "Forbidden",
        message: `namespaces "${name}" is forbidden: this namespace may not be deleted`,
      });
    }
  });

  it("DELETE makes a namespace Terminating; creates in it get 403 NamespaceTerminating; /finalize removes it", async () => {
    expect(
      (await t.call("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "doomed" } } })).status,
    ).toBe(201);
    expect((await t.call("POST", "/api/v1/namespaces/doomed/configmaps", { body: configMap("inside") })).status).toBe(201);

    const del = await t.call("DELETE", "/api/v1/namespaces/doomed");
    expect(del.status).toBe(200);
    expect(del.json).toMatchObject({ kind: "Namespace", status: { phase: "Terminating" }, spec: { finalizers: ["kubernetes"] } });
    expect(del.json.metadata.deletionTimestamp).toBeTruthy();

    const create = await t.call("POST", "/api/v1/namespaces/doomed/configmaps", { body: configMap("late") });
    expect(create.status).toBe(403);
    expect(create.json.message).toBe(
      'configmaps "late" is forbidden: unable to create new content in namespace doomed because it is being terminated',
    );
    expect(create.json.details.causes).toEqual([
      { reason: "NamespaceTerminating", message: "namespace doomed is being terminated", field: "metadata.namespace" },
    ]);

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
    expect(uid.json.message).toMatch(
      /^Operation cannot be fulfilled on namespaces "guarded": Precondition failed: UID in precondition: not-it, UID in object meta: [0-9a-f-]{36}$/,
    );
    const rv = await t.call("DELETE", "/api/v1/namespaces/guarded", { body: { preconditions: { resourceVersion: "1" } } });
    expect(rv.status).toBe(409);
    expect(rv.json.message).toMatch(
      /^Operation cannot be fulfilled on namespaces "guarded": Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: \d+$/,
    );
    expect((await t.call("GET", "/api/v1/namespaces/guarded")).json.status.phase).toBe("Active");
  });

  it("a namespace without spec finalizers stays Terminating after the first DELETE; the next DELETE removes it and answers the Namespace", async () => {
    await t.call("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "quick" } } });
    await t.call("PUT", "/api/v1/namespaces/quick/finalize", {
      body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "quick" }, spec: { finalizers: [] } },
    });
    const first = await t.call("DELETE", "/api/v1/namespaces/quick");
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ kind: "Namespace", metadata: { name: "quick" }, status: { phase: "Terminating" } });
    expect((await t.call("GET", "/api/v1/namespaces/quick")).json.status.phase).toBe("Terminating");
    const second = await t.call("DELETE", "/api/v1/namespaces/quick");
    expect(second.status).toBe(200);
    expect(second.json).toMatchObject({ kind: "Namespace", metadata: { name: "quick", uid: first.json.metadata.uid } });
    expect((await t.call("GET", "/api/v1/namespaces/quick")).status).toBe(404);
  });

  it("DELETE adds the garbage-collection finalizer its propagation policy asks for", async () => {
    await t.call("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "orphaning" } } });
    const del = await t.call("DELETE", "/api/v1/namespaces/orphaning", {
      body: { kind: "DeleteOptions", apiVersion: "v1", propagationPolicy: "Orphan" },
    });
    expect(del.status).toBe(200);
    expect(del.json.metadata.finalizers).toEqual(["orphan"]);
    expect((await t.call("GET", "/api/v1/namespaces/orphaning")).json.metadata.finalizers).toEqual(["orphan"]);
  });

  it("/finalize records its manager's ownership of spec.finalizers under the finalize subresource", async () => {
    const created = await t.call("POST", "/api/v1/namespaces?fieldManager=creator", {
      body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "owned" } },
    });
    const fin = await t.call("PUT", "/api/v1/namespaces/owned/finalize?fieldManager=finalizer", {
      body: { ...created.json, spec: { finalizers: ["example.com/x"] } },
    });
    expect(fin.status).toBe(200);
    expect(fin.json.spec.finalizers).toEqual(["example.com/x"]);
    const entry = fin.json.metadata.managedFields.find((m: { manager: string }) => m.manager === "finalizer");
    expect(entry).toMatchObject({
      operation: "Update",
      apiVersion: "v1",
      subresource: "finalize",
      fieldsType: "FieldsV1",
      fieldsV1: { "f:spec": { "f:finalizers": {} } },
    });
  });

  it("/finalize takes PUT only and validates the finalizer names", async () => {
    await t.call("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "fin" } } });
    expect((await t.call("GET", "/api/v1/namespaces/fin/finalize")).status).toBe(405);
    const patch = await t.call("PATCH", "/api/v1/namespaces/fin/finalize", {
      raw: "{}",
      headers: { "Content-Type": "application/merge-patch+json" },
    });
    expect(patch.status).toBe(405);
    const bad = await t.call("PUT", "/api/v1/namespaces/fin/finalize", {
      body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "fin" }, spec: { finalizers: ["bad"] } },
    });
    expect(bad.status).toBe(422);
    expect(bad.json.message).toBe(
      'Namespace "fin" is invalid: spec.finalizers: Invalid value: "bad": name is neither a standard finalizer name nor is it fully qualified',
    );
    const mismatch = await t.call("PUT", "/api/v1/namespaces/fin/finalize", {
      body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "other" }, spec: {} },
    });
    expect(mismatch.status).toBe(400);
  });

  it("serves /status of a namespace and a cluster-scoped resource is not addressable inside a namespace", async () => {
    const status = await t.call("GET", "/api/v1/namespaces/default/status");
    expect(status.status).toBe(200);
    expect(status.json.metadata.name).toBe("default");
    expect((await t.call("GET", "/api/v1/namespaces/default/namespaces/x")).status).toBe(404);
  });
});

describe("namespace deletion and admission", () => {
  it("DELETE and PUT /finalize go through the one admission chain with the stored namespace as the old object", async () => {
    const seen: string[] = [];
    const recorder: AdmissionPlugin = {
      name: "recorder",
      validate(a) {
        if (a.definition.plural !== "namespaces" || a.name !== "watched") return;
        seen.push(
          `${a.operation} ${a.subresource || "-"} old=${(a.oldObject as { status?: { phase?: string } } | undefined)?.status?.phase ?? "none"}`,
        );
      },
    };
    const plane = await startTestPlane({ admission: [recorder] });
    try {
      await plane.call("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "watched" } } });
      const del = await plane.call("DELETE", "/api/v1/namespaces/watched");
      const fin = await plane.call("PUT", "/api/v1/namespaces/watched/finalize", { body: { ...del.json, spec: {} } });
      expect(fin.status).toBe(200);
      expect(seen).toEqual(["CREATE - old=none", "DELETE - old=Active", "UPDATE finalize old=Terminating"]);
    } finally {
      await plane.close();
    }
  });
});
