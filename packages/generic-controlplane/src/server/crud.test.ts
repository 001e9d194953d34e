/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any -- tests read arbitrary JSON responses */
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

const CM = "/api/v1/namespaces/default/configmaps";

describe("create", () => {
  it("creates from JSON with 201 and answers the stored object", async () => {
    const r = await t.call("POST", CM, { body: configMap("c1", { k: "v" }) });
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c1", namespace: "default" }, data: { k: "v" } });
    expect(r.json.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.json.metadata.resourceVersion).toMatch(/^\d+$/);
  });

  it("reads a body without Content-Type as JSON (kubectl 1.20)", async () => {
    // fetch labels a string body text/plain; bytes go without a Content-Type.
    const r = await t.call("POST", CM, { raw: new TextEncoder().encode(JSON.stringify(configMap("no-ct"))) });
    expect(r.status).toBe(201);
    expect(r.json.metadata.name).toBe("no-ct");
  });

  it("reads YAML bodies", async () => {
    const yaml = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  x: 'y'\n";
    const r = await t.call("POST", CM, { raw: yaml, headers: { "Content-Type": "application/yaml" } });
    expect(r.status).toBe(201);
    expect(r.json.data).toEqual({ x: "y" });
  });

  it("defaults apiVersion, kind and namespace from the URL when the body omits them (python client)", async () => {
    const r = await t.call("POST", CM, { body: { metadata: { name: "py" }, data: { a: "b" } } });
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ apiVersion: "v1", kind: "ConfigMap", metadata: { namespace: "default" } });
  });

  it("rejects a body of another kind, apiVersion or namespace with 400", async () => {
    const kind = await t.call("POST", CM, { body: { apiVersion: "v1", kind: "Secret", metadata: { name: "s" } } });
    expect(kind.status).toBe(400);
    expect(kind.json).toMatchObject({ kind: "Status", status: "Failure", reason: "BadRequest", code: 400 });
    const version = await t.call("POST", CM, { body: { apiVersion: "v2", kind: "ConfigMap", metadata: { name: "s" } } });
    expect(version.status).toBe(400);
    const ns = await t.call("POST", CM, { body: { ...configMap("s"), metadata: { name: "s", namespace: "kube-system" } } });
    expect(ns.status).toBe(400);
    expect(ns.json.message).toBe("the namespace of the provided object does not match the namespace sent on the request");
  });

  it("answers 409 AlreadyExists with upstream wording", async () => {
    await t.call("POST", CM, { body: configMap("dup") });
    const r = await t.call("POST", CM, { body: configMap("dup") });
    expect(r.status).toBe(409);
    expect(r.json).toMatchObject({
      reason: "AlreadyExists",
      message: 'configmaps "dup" already exists',
      details: { name: "dup", kind: "configmaps" },
    });
    // Byte for byte what kube-apiserver writes (the python client's e2e compares it).
    expect(r.text).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"dup\\" already exists","reason":"AlreadyExists","details":{"name":"dup","kind":"configmaps"},"code":409}\n',
    );
  });

  it("answers 422 Invalid with causes for an invalid object", async () => {
    const r = await t.call("POST", CM, { body: configMap("bad", { "bad key!": "v" }) });
    expect(r.status).toBe(422);
    expect(r.json.reason).toBe("Invalid");
    expect(r.json.details.causes.length).toBeGreaterThan(0);
  });

  it("persists nothing with dryRun=All and rejects other dryRun values", async () => {
    const dry = await t.call("POST", `${CM}?dryRun=All`, { body: configMap("dry") });
    expect(dry.status).toBe(201);
    expect((await t.call("GET", `${CM}/dry`)).status).toBe(404);
    const bad = await t.call("POST", `${CM}?dryRun=Some`, { body: configMap("dry") });
    expect(bad.status).toBe(422);
    expect(bad.json.message).toContain('dryRun: Unsupported value: []string{"Some"}: supported values: "All"');
  });

  it("limits fieldManager to 128 characters", async () => {
    const ok = await t.call("POST", `${CM}?fieldManager=${"m".repeat(128)}`, { body: configMap("fm-ok") });
    expect(ok.status).toBe(201);
    const r = await t.call("POST", `${CM}?fieldManager=${"m".repeat(129)}`, { body: configMap("fm") });
    expect(r.status).toBe(422);
    expect(r.json.message).toContain("fieldManager: Too long");
  });

  it("refuses bodies over 3 MiB with 413 RequestEntityTooLarge", async () => {
    const big = configMap("big", { k: "x".repeat(3 * 1024 * 1024) });
    const r = await t.call("POST", CM, { body: big });
    expect(r.status).toBe(413);
    expect(r.json).toMatchObject({ kind: "Status", reason: "RequestEntityTooLarge", code: 413 });
  });

  it("refuses a chunked body (no Content-Length) once it passes 3 MiB", async () => {
    const chunk = new TextEncoder().encode("x".repeat(1024 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 4) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const response = await fetch(t.url + CM, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: stream,
      duplex: "half",
    });
    expect(response.status).toBe(413);
    expect(((await response.json()) as { message: string }).message).toBe("Request entity too large: limit is 3145728");
  });

  it("answers 415 for an unknown Content-Type, listing accepted ones", async () => {
    const r = await t.call("POST", CM, { raw: "x", headers: { "Content-Type": "text/plain" } });
    expect(r.status).toBe(415);
    expect(r.json.reason).toBe("UnsupportedMediaType");
    expect(r.json.message).toContain("application/json");
  });

  it("answers 400 for malformed JSON", async () => {
    const r = await t.call("POST", CM, { raw: "{nope", headers: { "Content-Type": "application/json" } });
    expect(r.status).toBe(400);
    expect(r.json.kind).toBe("Status");
  });

  it("creates in a namespace that does not exist → 404 namespaces not found", async () => {
    const r = await t.call("POST", "/api/v1/namespaces/missing/configmaps", { body: configMap("x") });
    expect(r.status).toBe(404);
    expect(r.json.message).toBe('namespaces "missing" not found');
  });
});

describe("fieldValidation", () => {
  const withUnknown = { ...configMap("fv"), spec: { x: 1 } };

  it("Strict rejects unknown fields with a strict decoding error", async () => {
    const r = await t.call("POST", `${CM}?fieldValidation=Strict`, { body: withUnknown });
    expect(r.status).toBe(400);
    expect(r.json.message).toBe('strict decoding error: unknown field "spec"');
  });

  it("Strict rejects duplicate fields", async () => {
    const raw = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dupfield"},"data":{"a":"1"},"data":{"b":"2"}}';
    const r = await t.call("POST", `${CM}?fieldValidation=Strict`, { raw, headers: { "Content-Type": "application/json" } });
    expect(r.status).toBe(400);
    expect(r.json.message).toContain('duplicate field "data"');
  });

  it("Strict lists unknown and duplicate fields in document order, like upstream", async () => {
    const raw =
      '{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l"},"spec":{"unknownField":"foo","leaseDurationSeconds":2,"leaseDurationSeconds":3}}';
    const r = await t.call("POST", "/apis/coordination.k8s.io/v1/namespaces/default/leases?fieldValidation=Strict", {
      raw,
      headers: { "Content-Type": "application/json" },
    });
    expect(r.status).toBe(400);
    expect(r.json.message).toBe('strict decoding error: unknown field "spec.unknownField", duplicate field "spec.leaseDurationSeconds"');
  });

  it("Warn stores the object without the unknown field and sends a Warning header", async () => {
    const r = await t.call("POST", `${CM}?fieldValidation=Warn`, { body: { ...withUnknown, metadata: { name: "fv-warn" } } });
    expect(r.status).toBe(201);
    expect(r.headers.get("warning")).toBe('299 - "unknown field \\"spec\\""');
    expect(r.json.spec).toBeUndefined();
  });

  it("Ignore drops unknown fields silently; other values are rejected", async () => {
    const r = await t.call("POST", `${CM}?fieldValidation=Ignore`, { body: { ...withUnknown, metadata: { name: "fv-ignore" } } });
    expect(r.status).toBe(201);
    expect(r.headers.get("warning")).toBeNull();
    const bad = await t.call("POST", `${CM}?fieldValidation=Loud`, { body: configMap("fv-bad") });
    expect(bad.status).toBe(422);
  });
});

describe("get and list", () => {
  it("gets an object and 404s a missing one with a Status", async () => {
    await t.call("POST", CM, { body: configMap("g1") });
    const r = await t.call("GET", `${CM}/g1`);
    expect(r.status).toBe(200);
    expect(r.json.metadata.name).toBe("g1");
    const missing = await t.call("GET", `${CM}/nope`);
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({
      kind: "Status",
      apiVersion: "v1",
      status: "Failure",
      reason: "NotFound",
      code: 404,
      message: 'configmaps "nope" not found',
    });
  });

  it("lists with a resourceVersion, label selectors and cluster-wide", async () => {
    await t.call("POST", CM, { body: configMap("l1", {}, { app: "one" }) });
    await t.call("POST", CM, { body: configMap("l2", {}, { app: "two" }) });
    const r = await t.call("GET", `${CM}?labelSelector=app%3Done`);
    expect(r.status).toBe(200);
    expect(r.json.kind).toBe("ConfigMapList");
    expect(r.json.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(r.json.items.map((i: any) => i.metadata.name)).toEqual(["l1"]);
    const all = await t.call("GET", "/api/v1/configmaps?labelSelector=app");
    expect(all.json.items.map((i: any) => i.metadata.name).sort()).toEqual(["l1", "l2"]);
  });

  it("pages with limit and continue", async () => {
    for (const name of ["p1", "p2", "p3"]) await t.call("POST", "/api/v1/namespaces/kube-public/configmaps", { body: configMap(name) });
    const first = await t.call("GET", "/api/v1/namespaces/kube-public/configmaps?limit=2");
    expect(first.json.items).toHaveLength(2);
    expect(first.json.metadata.continue).toBeTruthy();
    const second = await t.call(
      "GET",
      `/api/v1/namespaces/kube-public/configmaps?limit=2&continue=${encodeURIComponent(first.json.metadata.continue)}`,
    );
    expect(second.json.items.map((i: any) => i.metadata.name)).toEqual(["p3"]);
  });

  it("serves the Table form for kubectl's Accept and 406 for Table-only writes", async () => {
    const accept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
    const r = await t.call("GET", CM, { headers: { Accept: accept } });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ kind: "Table", apiVersion: "meta.k8s.io/v1" });
    expect(r.json.columnDefinitions[0]).toMatchObject({ name: "Name", format: "name" });
    expect(r.json.columnDefinitions.map((c: any) => c.name)).toEqual(["Name", "Data", "Age"]);
    expect(r.json.rows[0].object).toMatchObject({ kind: "PartialObjectMetadata" });
    const one = await t.call("GET", `${CM}/g1?includeObject=Object`, {
      headers: { Accept: "application/json;as=Table;v=v1beta1;g=meta.k8s.io" },
    });
    expect(one.json.apiVersion).toBe("meta.k8s.io/v1beta1");
    expect(one.json.rows).toHaveLength(1);
    expect(one.json.rows[0].object.kind).toBe("ConfigMap");
    const write = await t.call("POST", CM, {
      body: configMap("t406"),
      headers: { Accept: "application/json;as=Table;v=v1;g=meta.k8s.io" },
    });
    expect(write.status).toBe(406);
    expect(write.json.reason).toBe("NotAcceptable");
  });

  it("answers YAML when asked", async () => {
    const r = await t.call("GET", `${CM}/g1`, { headers: { Accept: "application/yaml" } });
    expect(r.headers.get("content-type")).toBe("application/yaml");
    expect(r.text).toContain("name: g1");
  });

  it("404s unknown resources and groups with a Status", async () => {
    const r = await t.call("GET", "/api/v1/namespaces/default/pods");
    expect(r.status).toBe(404);
    expect(r.json.kind).toBe("Status");
    expect((await t.call("GET", "/apis/apps/v1/deployments")).status).toBe(404);
  });
});

describe("update", () => {
  it("replaces with PUT, 409s a stale resourceVersion, 400s a name mismatch", async () => {
    const created = (await t.call("POST", CM, { body: configMap("u1", { a: "1" }) })).json;
    const updated = await t.call("PUT", `${CM}/u1`, { body: { ...created, data: { a: "2" } } });
    expect(updated.status).toBe(200);
    expect(updated.json.data).toEqual({ a: "2" });
    const stale = await t.call("PUT", `${CM}/u1`, { body: { ...created, data: { a: "3" } } });
    expect(stale.status).toBe(409);
    expect(stale.json.reason).toBe("Conflict");
    expect(stale.json.message).toContain('Operation cannot be fulfilled on configmaps "u1"');
    const renamed = await t.call("PUT", `${CM}/u1`, { body: configMap("other") });
    expect(renamed.status).toBe(400);
    expect(renamed.json.message).toBe("the name of the object (other) does not match the name on the URL (u1)");
  });

  it("PUT without a resourceVersion is unconditional", async () => {
    await t.call("POST", CM, { body: configMap("u2") });
    const r = await t.call("PUT", `${CM}/u2`, { body: configMap("u2", { z: "9" }) });
    expect(r.status).toBe(200);
    expect(r.json.data).toEqual({ z: "9" });
  });
});

describe("patch", () => {
  it("applies JSON patch, merge patch and strategic merge patch", async () => {
    await t.call("POST", CM, { body: configMap("pt", { a: "1", b: "2" }) });
    const json = await t.call("PATCH", `${CM}/pt`, {
      raw: JSON.stringify([{ op: "replace", path: "/data", value: { c: "3" } }]),
      headers: { "Content-Type": "application/json-patch+json" },
    });
    expect(json.status).toBe(200);
    expect(json.json.data).toEqual({ c: "3" });
    const merge = await t.call("PATCH", `${CM}/pt`, {
      raw: JSON.stringify({ metadata: { labels: { l: "x" } } }),
      headers: { "Content-Type": "application/merge-patch+json" },
    });
    expect(merge.json.metadata.labels).toEqual({ l: "x" });
    const smp = await t.call("PATCH", `${CM}/pt`, {
      raw: JSON.stringify({ data: { d: "4", c: null } }),
      headers: { "Content-Type": "application/strategic-merge-patch+json" },
    });
    expect(smp.status).toBe(200);
    expect(smp.json.data).toEqual({ d: "4" });
  });

  it("404s a patch of a missing object and 415s unknown patch types", async () => {
    const missing = await t.call("PATCH", `${CM}/nope`, { raw: "{}", headers: { "Content-Type": "application/merge-patch+json" } });
    expect(missing.status).toBe(404);
    const bad = await t.call("PATCH", `${CM}/pt`, { raw: "{}", headers: { "Content-Type": "application/json" } });
    expect(bad.status).toBe(415);
    expect(bad.json.message).toContain("application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json");
  });

  it("rejects a failed JSON patch test and a patch that renames the object", async () => {
    const test = await t.call("PATCH", `${CM}/pt`, {
      raw: JSON.stringify([{ op: "test", path: "/data/d", value: "nope" }]),
      headers: { "Content-Type": "application/json-patch+json" },
    });
    expect(test.status).toBeGreaterThanOrEqual(400);
    expect(test.status).toBeLessThan(500);
    const rename = await t.call("PATCH", `${CM}/pt`, {
      raw: JSON.stringify({ metadata: { name: "other" } }),
      headers: { "Content-Type": "application/merge-patch+json" },
    });
    expect(rename.status).toBe(400);
  });

  it("fails Strict validation for unknown fields introduced by a patch", async () => {
    const r = await t.call("PATCH", `${CM}/pt?fieldValidation=Strict`, {
      raw: JSON.stringify({ spec: { x: 1 } }),
      headers: { "Content-Type": "application/merge-patch+json" },
    });
    expect(r.status).toBe(400);
    expect(r.json.message).toBe('strict decoding error: unknown field "spec"');
  });
});

describe("delete", () => {
  it("deletes with a DeleteOptions body and answers a Success Status", async () => {
    const created = (await t.call("POST", CM, { body: configMap("d1") })).json;
    const r = await t.call("DELETE", `${CM}/d1`, { body: { propagationPolicy: "Background" } });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      kind: "Status",
      status: "Success",
      details: { name: "d1", kind: "configmaps", uid: created.metadata.uid },
    });
    expect((await t.call("GET", `${CM}/d1`)).status).toBe(404);
    expect((await t.call("DELETE", `${CM}/d1`)).status).toBe(404);
  });

  it("validates propagationPolicy and honours dryRun from the query", async () => {
    await t.call("POST", CM, { body: configMap("d2") });
    const bad = await t.call("DELETE", `${CM}/d2?propagationPolicy=Sideways`);
    expect(bad.status).toBe(422);
    const dry = await t.call("DELETE", `${CM}/d2?dryRun=All`);
    expect(dry.status).toBe(200);
    expect((await t.call("GET", `${CM}/d2`)).status).toBe(200);
  });

  it("keeps an object with finalizers, answering 200 with deletionTimestamp set", async () => {
    await t.call("POST", CM, { body: { ...configMap("d3"), metadata: { name: "d3", finalizers: ["example.com/hold"] } } });
    const r = await t.call("DELETE", `${CM}/d3`);
    expect(r.status).toBe(200);
    expect(r.json.kind).toBe("ConfigMap");
    expect(r.json.metadata.deletionTimestamp).toBeTruthy();
  });

  it("deletes a collection by label selector and answers the deleted list", async () => {
    for (const name of ["dc1", "dc2", "dc3"])
      await t.call("POST", CM, { body: configMap(name, {}, name === "dc3" ? { keep: "yes" } : { gone: "yes" }) });
    const r = await t.call("DELETE", `${CM}?labelSelector=gone%3Dyes`);
    expect(r.status).toBe(200);
    expect(r.json.items.map((i: any) => i.metadata.name).sort()).toEqual(["dc1", "dc2"]);
    expect((await t.call("GET", `${CM}/dc3`)).status).toBe(200);
    expect((await t.call("GET", `${CM}/dc1`)).status).toBe(404);
  });
});

describe("protobuf request bodies (kubectl 1.32 create)", () => {
  it("creates from a k8s\\0 protobuf body and answers JSON", async () => {
    const { encodeProtobuf } = await import("../protobuf/codec.js");
    const body = encodeProtobuf({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "from-proto" }, data: { p: "q" } });
    const r = await t.call("POST", `${CM}?fieldManager=kubectl-create&fieldValidation=Strict`, {
      raw: body,
      headers: { "Content-Type": "application/vnd.kubernetes.protobuf", Accept: "application/vnd.kubernetes.protobuf,application/json" },
    });
    expect(r.status).toBe(201);
    expect(r.headers.get("content-type")).toBe("application/json");
    expect(r.json).toMatchObject({ kind: "ConfigMap", metadata: { name: "from-proto", namespace: "default" }, data: { p: "q" } });
  });

  it("answers protobuf to a client that accepts only protobuf (not for watches)", async () => {
    const { decodeProtobuf } = await import("../protobuf/codec.js");
    const one = await fetch(`${t.url}${CM}/from-proto`, { headers: { Accept: "application/vnd.kubernetes.protobuf" } });
    expect(one.headers.get("content-type")).toBe("application/vnd.kubernetes.protobuf");
    expect(decodeProtobuf(new Uint8Array(await one.arrayBuffer()))).toMatchObject({
      kind: "ConfigMap",
      metadata: { name: "from-proto" },
      data: { p: "q" },
    });
    const list = await fetch(`${t.url}${CM}`, { headers: { Accept: "application/vnd.kubernetes.protobuf" } });
    expect(decodeProtobuf(new Uint8Array(await list.arrayBuffer())).kind).toBe("ConfigMapList");
    const watch = await t.call("GET", `${CM}?watch=true`, { headers: { Accept: "application/vnd.kubernetes.protobuf" } });
    expect(watch.status).toBe(406);
    expect(watch.json.kind).toBe("Status");
  });

  it("answers a Status in JSON for a malformed protobuf body", async () => {
    const r = await t.call("POST", CM, {
      raw: new Uint8Array([0x6b, 0x38, 0x73, 0x00, 0xff, 0xff]),
      headers: { "Content-Type": "application/vnd.kubernetes.protobuf" },
    });
    expect(r.status).toBe(400);
    expect(r.json.kind).toBe("Status");
  });
});

describe("server-side apply", () => {
  const APPLY = { "Content-Type": "application/apply-patch+yaml" };
  const applyBody = (data: Record<string, string>) =>
    JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "ssa" }, data });

  it("creates a missing object and records an Apply entry in managedFields", async () => {
    const r = await t.call("PATCH", `${CM}/ssa?fieldManager=tool-a`, { raw: applyBody({ a: "1", b: "2" }), headers: APPLY });
    expect(r.status).toBe(201);
    expect(r.json.data).toEqual({ a: "1", b: "2" });
    expect(r.json.metadata.managedFields).toEqual([
      // An applier owns what it lists: the keys of data, not data itself (a struct field).
      expect.objectContaining({ manager: "tool-a", operation: "Apply", fieldsV1: { "f:data": { "f:a": {}, "f:b": {} } } }),
    ]);
  });

  it("applies changes and removes fields the manager no longer lists", async () => {
    const r = await t.call("PATCH", `${CM}/ssa?fieldManager=tool-a`, {
      raw: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  a: '10'\n",
      headers: APPLY,
    });
    expect(r.status).toBe(200);
    expect(r.json.data).toEqual({ a: "10" });
  });

  it("409s a change to a field another manager owns, unless forced", async () => {
    const other = await t.call("PATCH", `${CM}/ssa?fieldManager=editor`, {
      raw: JSON.stringify({ data: { a: "edited" } }),
      headers: { "Content-Type": "application/merge-patch+json" },
    });
    expect(other.status).toBe(200);
    const conflict = await t.call("PATCH", `${CM}/ssa?fieldManager=tool-a`, { raw: applyBody({ a: "11" }), headers: APPLY });
    expect(conflict.status).toBe(409);
    expect(conflict.json.reason).toBe("Conflict");
    expect(conflict.json.message).toBe('Apply failed with 1 conflict: conflict with "editor" using v1: .data.a');
    expect(conflict.json.details.causes[0]).toMatchObject({ reason: "FieldManagerConflict", field: ".data.a" });
    const forced = await t.call("PATCH", `${CM}/ssa?fieldManager=tool-a&force=true`, { raw: applyBody({ a: "11" }), headers: APPLY });
    expect(forced.status).toBe(200);
    expect(forced.json.data).toEqual({ a: "11" });
    expect(forced.json.metadata.managedFields.map((e: any) => e.manager)).toEqual(["tool-a"]);
  });

  it("400s a configuration of another type or one that carries managedFields, like kube-apiserver", async () => {
    const secret = await t.call("PATCH", `${CM}/ssa?fieldManager=tool-a`, {
      raw: JSON.stringify({ apiVersion: "v1", kind: "Secret", metadata: { name: "ssa" } }),
      headers: APPLY,
    });
    expect(secret.status).toBe(400);
    expect(secret.json).toMatchObject({ reason: "BadRequest", message: "invalid object type: /v1, Kind=Secret" });
    const untyped = await t.call("PATCH", `${CM}/ssa?fieldManager=tool-a`, {
      raw: JSON.stringify({ metadata: { name: "ssa" } }),
      headers: APPLY,
    });
    expect(untyped.json).toMatchObject({ code: 400, message: "invalid object type: /, Kind=" });
    const managed = await t.call("PATCH", `${CM}/ssa?fieldManager=tool-a`, {
      raw: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "ssa", managedFields: [] } }),
      headers: APPLY,
    });
    expect(managed.json).toMatchObject({ code: 400, reason: "BadRequest", message: "metadata.managedFields must be nil" });
  });

  it("requires a fieldManager and forbids force on other patch types", async () => {
    const r = await t.call("PATCH", `${CM}/ssa`, { raw: applyBody({ a: "1" }), headers: APPLY });
    expect(r.status).toBe(422);
    expect(r.json.message).toContain("fieldManager: Required value: is required for apply patch");
    const force = await t.call("PATCH", `${CM}/ssa?force=true`, { raw: "{}", headers: { "Content-Type": "application/merge-patch+json" } });
    expect(force.status).toBe(422);
  });
});

describe("server-side apply racing a namesake", () => {
  it("gives up with a conflict naming the group-qualified resource when the object keeps being created and deleted", async () => {
    const LEASES = "/apis/coordination.k8s.io/v1/namespaces/default/leases";
    const lease = (holder: string) => ({
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "race" },
      spec: { holderIdentity: holder },
    });
    const other: { plane?: TestPlane } = {};
    let nested = false;
    // Another client wins every race: it creates the lease just before the apply's create and
    // deletes it just before the apply's update.
    const plugin: AdmissionPlugin = {
      name: "Racer",
      async validate(attributes) {
        const racer = other.plane;
        if (nested || attributes.name !== "race" || racer === undefined) return;
        nested = true;
        try {
          if (attributes.operation === "CREATE") expect((await racer.call("POST", LEASES, { body: lease("other") })).status).toBe(201);
          if (attributes.operation === "UPDATE") expect((await racer.call("DELETE", `${LEASES}/race`)).status).toBe(200);
        } finally {
          nested = false;
        }
      },
    };
    const racer = await startTestPlane({ admission: [plugin] });
    other.plane = racer;
    try {
      const r = await racer.call("PATCH", `${LEASES}/race?fieldManager=tool&force=true`, {
        raw: JSON.stringify(lease("tool")),
        headers: { "Content-Type": "application/apply-patch+yaml" },
      });
      expect(r.status).toBe(409);
      expect(r.json).toMatchObject({
        reason: "Conflict",
        message:
          'Operation cannot be fulfilled on leases.coordination.k8s.io "race": the object was created and deleted concurrently; try again',
        details: { name: "race", group: "coordination.k8s.io", kind: "leases" },
      });
    } finally {
      await racer.close();
    }
  });
});

describe("managedFields", () => {
  it("records an Update entry for the fieldManager, or for the User-Agent prefix without one", async () => {
    const named = await t.call("POST", `${CM}?fieldManager=my-tool`, { body: configMap("mf1") });
    expect(named.json.metadata.managedFields[0]).toMatchObject({ manager: "my-tool", operation: "Update", fieldsType: "FieldsV1" });
    const agent = await t.call("POST", CM, {
      body: configMap("mf2"),
      headers: { "User-Agent": "kubectl/v1.32.4 (linux/amd64) kubernetes/abc" },
    });
    expect(agent.json.metadata.managedFields[0].manager).toBe("kubectl");
  });
});

describe("more paths and options", () => {
  it("answers PartialObjectMetadata lists for the metadata-only Accept", async () => {
    await t.call("POST", CM, { body: configMap("pom") });
    const r = await t.call("GET", CM, {
      headers: { Accept: "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json" },
    });
    expect(r.json.kind).toBe("PartialObjectMetadataList");
    expect(r.json.items[0]).toMatchObject({ kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1" });
    expect(r.json.items[0].data).toBeUndefined();
  });

  it("honours dryRun=All on PUT, PATCH and DELETE of a collection", async () => {
    const created = (await t.call("POST", CM, { body: configMap("dry-w", { v: "1" }, { dry: "w" }) })).json;
    const put = await t.call("PUT", `${CM}/dry-w?dryRun=All`, { body: { ...created, data: { v: "2" } } });
    expect(put.status).toBe(200);
    expect(put.json.data).toEqual({ v: "2" });
    const patch = await t.call("PATCH", `${CM}/dry-w?dryRun=All`, {
      raw: JSON.stringify({ data: { v: "3" } }),
      headers: { "Content-Type": "application/merge-patch+json" },
    });
    expect(patch.json.data).toEqual({ v: "3" });
    const collection = await t.call("DELETE", `${CM}?labelSelector=dry%3Dw&dryRun=All`);
    expect(collection.json.items).toHaveLength(1);
    const stored = await t.call("GET", `${CM}/dry-w`);
    expect(stored.json.data).toEqual({ v: "1" });
    expect(stored.json.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
  });

  it("405s writes to the wrong place and 404s subresources a type does not have", async () => {
    expect((await t.call("PUT", CM, { body: configMap("x") })).status).toBe(405);
    expect((await t.call("POST", `${CM}/named`, { body: configMap("named") })).status).toBe(405);
    expect((await t.call("POST", "/api/v1/configmaps", { body: configMap("nowhere") })).status).toBe(405);
    // What a client makes of the router's bare 405, naming the resource as group-qualified.
    const lease = { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "nowhere" } };
    const grouped = await t.call("POST", "/apis/coordination.k8s.io/v1/leases", { body: lease });
    expect(grouped.status).toBe(405);
    expect(grouped.json).toMatchObject({
      reason: "MethodNotAllowed",
      message: "the server does not allow this method on the requested resource (post leases.coordination.k8s.io)",
      details: { group: "coordination.k8s.io", kind: "leases" },
    });
    const status = await t.call("GET", `${CM}/g1/status`);
    expect(status.status).toBe(404);
    expect(status.json.kind).toBe("Status");
  });

  it("counts open watches in apiserver_registered_watchers", async () => {
    const controller = new AbortController();
    const response = await fetch(`${t.url}${CM}?watch=true&resourceVersion=0`, { signal: controller.signal });
    expect(response.status).toBe(200);
    const metrics = await t.call("GET", "/metrics");
    expect(metrics.text).toMatch(/apiserver_registered_watchers\{group="",version="v1",kind="ConfigMap"\} [1-9]/);
    controller.abort();
  });
});

describe("hostile input", () => {
  it("escapes non-ASCII unknown field names in Warning headers instead of failing", async () => {
    const r = await t.call("POST", `${CM}?fieldValidation=Warn`, { body: { ...configMap("unicode-field"), ключ: 1 } });
    expect(r.status).toBe(201);
    expect(r.headers.get("warning")).toBe('299 - "unknown field \\"\\u043a\\u043b\\u044e\\u0447\\""');
    expect((await t.call("GET", "/healthz")).status).toBe(200);
  });
});
