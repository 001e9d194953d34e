/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any -- tests read arbitrary JSON responses */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeProtobuf, encodeProtobuf } from "../protobuf/codec.js";
import { createSqliteStorage } from "../storage/sqlite.js";
import { startTestPlane, type TestPlane } from "./test-support.js";

let t: TestPlane;
beforeAll(async () => {
  t = await startTestPlane();
});
afterAll(async () => {
  await t.close();
});

const CM = "/api/v1/namespaces/default/configmaps";
const SECRETS = "/api/v1/namespaces/default/secrets";
const JSON_TYPE = { "Content-Type": "application/json" };

function expectStatus(r: { status: number; json: any }, code: number, reason: string, message?: string): void {
  expect(r.status).toBe(code);
  expect(r.json).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", code, reason });
  if (message !== undefined) expect(r.json.message).toBe(message);
}

describe("integers beyond what a JavaScript number holds exactly", () => {
  it("keep an int64 exact: the int64 maximum is stored and returned as itself, not rounded to 2^63", async () => {
    const edge = await t.call("POST", CM, {
      raw: '{"metadata":{"name":"int64-edge","generation":9223372036854775807}}',
      headers: { "content-type": "application/json" },
    });
    expect(edge.status, edge.text).toBe(201);
    const read = await t.call("GET", `${CM}/int64-edge`);
    expect(read.text).toContain('"generation":9223372036854775807');
  });

  it("count an int64 generation on exactly when deletion starts", async () => {
    const raw = '{"metadata":{"name":"int64-held","generation":9007199254740993,"finalizers":["example.com/hold"]}}';
    expect((await t.call("POST", CM, { raw, headers: JSON_TYPE })).status).toBe(201);
    const deleting = await t.call("DELETE", `${CM}/int64-held`);
    expect(deleting.status, deleting.text).toBe(200);
    expect(deleting.text).toContain('"generation":9007199254740994');
    const released = await t.call("PATCH", `${CM}/int64-held`, {
      raw: '{"metadata":{"finalizers":null}}',
      headers: { "Content-Type": "application/merge-patch+json" },
    });
    expect(released.status).toBe(200);
  });

  it("keep an int64 exact through protobuf, both ways", async () => {
    // An int64 beyond 2^53 is a bigint in a decoded object, which ObjectMeta's number type does not name.
    const metadata = { name: "int64-proto", generation: 9007199254740993n } as unknown as { name: string; generation: number };
    const raw = encodeProtobuf({ apiVersion: "v1", kind: "ConfigMap", metadata });
    const created = await t.call("POST", CM, { raw, headers: { "Content-Type": "application/vnd.kubernetes.protobuf" } });
    expect(created.status, created.text).toBe(201);
    expect(created.text).toContain('"generation":9007199254740993');
    const answer = await fetch(`${t.plane.url}${CM}/int64-proto`, { headers: { Accept: "application/vnd.kubernetes.protobuf" } });
    expect(decodeProtobuf(new Uint8Array(await answer.arrayBuffer()))).toMatchObject({ metadata: { generation: 9007199254740993n } });
  });

  it("refuse one past the int64 maximum with Go's message, and store nothing", async () => {
    const past = await t.call("POST", CM, {
      raw: '{"metadata":{"name":"int64-past","generation":9223372036854775808}}',
      headers: { "content-type": "application/json" },
    });
    expectStatus(
      past,
      400,
      "BadRequest",
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number 9223372036854775808 into Go struct field ObjectMeta.metadata.generation of type int64',
    );
    expect((await t.call("GET", `${CM}/int64-past`)).status).toBe(404);
  });
});

describe("malformed JSON bodies are refused in Go encoding/json's words", () => {
  it("a create with a trailing comma: upstream's transformDecodeError around the serializer's version/kind error", async () => {
    const r = await t.call("POST", CM, { raw: '{"metadata":{"name":"x",}}', headers: JSON_TYPE });
    expectStatus(
      r,
      400,
      "BadRequest",
      `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character '}' looking for beginning of object key string ({"metadata":{"name":"x",}})`,
    );
  });

  it("a truncated update: unexpected end of JSON input, with the body cut at 30 bytes", async () => {
    const r = await t.call("PUT", `${CM}/x`, { raw: '{"metadata":{"name":"x"},"data":{"a":"b"', headers: JSON_TYPE });
    expectStatus(
      r,
      400,
      "BadRequest",
      `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: unexpected end of JSON input ({"metadata":{"name":"x"},"data ...)`,
    );
  });

  it("a malformed merge patch names Go's syntax error", async () => {
    const r = await t.call("PATCH", `${CM}/x`, { raw: '{"data":{"a" "b"}}', headers: { "Content-Type": "application/merge-patch+json" } });
    expect(r.status).toBe(400);
    expect(r.json.message).toContain("invalid character '\"' after object key");
  });
});

describe("malformed JSON bodies", () => {
  it.each([
    ['{"metadata":{"name":"bad"},}', "invalid character '}' looking for beginning of object key string"],
    ['{"metadata":{"name":"bad"}', "unexpected end of JSON input"],
    ['{"metadata" {"name":"bad"}}', "invalid character '{' after object key"],
  ])("%j is a 400 in Go encoding/json's words", async (raw, goMessage) => {
    const r = await t.call("POST", CM, { raw, headers: JSON_TYPE });
    expectStatus(r, 400, "BadRequest");
    expect(r.json.message).toContain(goMessage);
    expect((await t.call("GET", `${CM}/bad`)).status).toBe(404);
  });

  it("on create and update, is kube-apiserver's unrecognized-object 400 quoting the body's start", async () => {
    const raw = '{"metadata":{"name":"bad"},"data":{"a":"1",}}';
    const summary = `${raw.slice(0, 30)} ...`;
    const message = `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character '}' looking for beginning of object key string (${summary})`;
    expectStatus(await t.call("POST", CM, { raw, headers: JSON_TYPE }), 400, "BadRequest", message);
    await t.call("POST", CM, { body: { metadata: { name: "bad-update" } } });
    expectStatus(
      await t.call("PUT", `${CM}/bad-update`, { raw: "{", headers: JSON_TYPE }),
      400,
      "BadRequest",
      "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: unexpected end of JSON input ({)",
    );
  });
});

describe("null maps and lists decode as empty, as Go does", () => {
  it("stores labels: null as no labels, so label selectors keep working namespaced and cluster-wide", async () => {
    const created = await t.call("POST", CM, {
      body: { metadata: { name: "nl", labels: null, annotations: null, finalizers: null, ownerReferences: null }, data: null },
    });
    expect(created.status).toBe(201);
    expect(created.json.metadata).not.toHaveProperty("labels");
    expect(created.json.metadata).not.toHaveProperty("annotations");
    expect(created.json.metadata).not.toHaveProperty("finalizers");
    expect(created.json).not.toHaveProperty("data");
    await t.call("POST", CM, { body: { metadata: { name: "web", labels: { app: "web" } } } });
    for (const path of [`${CM}?labelSelector=app%3Dweb`, "/api/v1/configmaps?labelSelector=app%3Dweb"]) {
      const list = await t.call("GET", path);
      expect(list.status).toBe(200);
      expect(list.json.items.map((o: any) => o.metadata.name)).toEqual(["web"]);
    }
    const watch = await t.call("GET", `${CM}?watch=true&labelSelector=!app&timeoutSeconds=1`);
    expect(watch.status).toBe(200);
    expect(watch.text).toContain('"name":"nl"');
    const removed = await t.call("DELETE", `${CM}?labelSelector=app%3Dweb`);
    expect(removed.status).toBe(200);
    expect(removed.json.items.map((o: any) => o.metadata.name)).toEqual(["web"]);
  });

  it("turns null map values and list items into their zero values and drops null fields on update", async () => {
    const created = await t.call("POST", CM, {
      body: { metadata: { name: "nv", labels: { a: null }, finalizers: [null] }, data: { k: null } },
    });
    expect(created.status).toBe(422);
    expect(created.json.message).toContain(`metadata.finalizers: Invalid value: ""`);
    const ok = await t.call("POST", CM, { body: { metadata: { name: "nv", labels: { a: null } }, data: { k: null } } });
    expect(ok.status).toBe(201);
    expect(ok.json.metadata.labels).toEqual({ a: "" });
    expect(ok.json.data).toEqual({ k: "" });
    const put = await t.call("PUT", `${CM}/nv`, { body: { metadata: { name: "nv", labels: null }, data: { k: "v" }, immutable: null } });
    expect(put.status).toBe(200);
    expect(put.json.metadata).not.toHaveProperty("labels");
    expect(put.json).not.toHaveProperty("immutable");
  });
});

describe("wrongly typed fields are refused with Go's decode message", () => {
  const immutable = (value: string) =>
    `ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal ${value} into Go struct field ConfigMap.immutable of type bool`;

  it.each([
    ["[1]", "array"],
    ['"yes"', "string"],
  ])("POST, PUT and apply of immutable: %s answer 400", async (literal, jsonKind) => {
    const post = await t.call("POST", CM, { raw: `{"metadata":{"name":"imm"},"immutable":${literal}}`, headers: JSON_TYPE });
    expectStatus(post, 400, "BadRequest", immutable(jsonKind));
    await t.call("POST", CM, { body: { metadata: { name: "imm" }, data: { a: "b" } } });
    const put = await t.call("PUT", `${CM}/imm`, { raw: `{"metadata":{"name":"imm"},"immutable":${literal}}`, headers: JSON_TYPE });
    expectStatus(put, 400, "BadRequest", immutable(jsonKind));
    const apply = await t.call("PATCH", `${CM}/imm?fieldManager=m`, {
      raw: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"imm"},"immutable":${literal}}`,
      headers: { "Content-Type": "application/apply-patch+yaml" },
    });
    expectStatus(apply, 400, "BadRequest", immutable(jsonKind));
    const stored = await t.call("GET", `${CM}/imm`);
    expect(stored.json).not.toHaveProperty("immutable");
    await t.call("DELETE", `${CM}/imm`);
  });

  it.each([
    ["application/merge-patch+json", '{"immutable":[1]}'],
    ["application/strategic-merge-patch+json", '{"immutable":"yes"}'],
    ["application/json-patch+json", '[{"op":"add","path":"/immutable","value":[1]}]'],
    ["application/json-patch+json", '[{"op":"add","path":"/metadata/generation","value":"1"}]'],
  ])("a %s patch producing a wrong type answers 422 and stores nothing", async (contentType, patch) => {
    await t.call("POST", CM, { body: { metadata: { name: "patched" }, data: { a: "b" } } });
    const before = await t.call("GET", `${CM}/patched`);
    const r = await t.call("PATCH", `${CM}/patched`, { raw: patch, headers: { "Content-Type": contentType } });
    expectStatus(r, 422, "Invalid");
    expect(r.json.message).toMatch(
      /^ "" is invalid: patch: Invalid value: .*json: cannot unmarshal (array|string) into Go struct field (ConfigMap\.immutable of type bool|ObjectMeta\.metadata\.generation of type int64)$/,
    );
    expect(r.json.details.causes).toEqual([expect.objectContaining({ reason: "FieldValueInvalid", field: "patch" })]);
    if (contentType === "application/strategic-merge-patch+json")
      expect(r.json.message).toContain('patch: Invalid value: "map[immutable:yes]"');
    const after = await t.call("GET", `${CM}/patched`);
    expect(after.json.metadata.resourceVersion).toBe(before.json.metadata.resourceVersion);
    await t.call("DELETE", `${CM}/patched`);
  });

  it("refuses a Secret type that is not a string", async () => {
    const r = await t.call("POST", SECRETS, { body: { metadata: { name: "s5" }, type: 5 } });
    expectStatus(
      r,
      400,
      "BadRequest",
      'Secret in version "v1" cannot be handled as a Secret: json: cannot unmarshal number into Go struct field Secret.type of type v1.SecretType',
    );
  });

  it("refuses a generation that is not an int64, quoting the number as sent", async () => {
    const r = await t.call("POST", CM, {
      raw: '{"metadata":{"name":"gen","generation":123456789012345678901234567890}}',
      headers: JSON_TYPE,
    });
    expectStatus(
      r,
      400,
      "BadRequest",
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number 123456789012345678901234567890 into Go struct field ObjectMeta.metadata.generation of type int64',
    );
    expect((await t.call("GET", `${CM}/gen`)).status).toBe(404);
  });

  it("refuses managedFields and metadata times a Go client could not parse", async () => {
    await t.call("POST", CM, { body: { metadata: { name: "times" } } });
    const managed = [{ manager: "m", operation: "Update", apiVersion: "v1", time: "yesterday", fieldsType: "FieldsV1", fieldsV1: {} }];
    const put = await t.call("PUT", `${CM}/times`, { body: { metadata: { name: "times", managedFields: managed } } });
    expectStatus(
      put,
      400,
      "BadRequest",
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"',
    );
    const post = await t.call("POST", CM, { body: { metadata: { name: "times2", deletionTimestamp: "2026-13-01T00:00:00Z" } } });
    expectStatus(
      post,
      400,
      "BadRequest",
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: parsing time "2026-13-01T00:00:00Z": month out of range',
    );
    expect((await t.call("GET", `${CM}/times`)).text).not.toContain("yesterday");
  });

  it.each([
    [{ metadata: "x" }, "string"],
    [{ metadata: 5 }, "number"],
    [{ metadata: [] }, "array"],
  ])("refuses metadata %j with 400", async (body, jsonKind) => {
    const r = await t.call("POST", CM, { body });
    expectStatus(
      r,
      400,
      "BadRequest",
      `ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal ${jsonKind} into Go struct field ConfigMap.metadata of type v1.ObjectMeta`,
    );
  });

  it.each([
    [
      "/api/v1/namespaces/default/serviceaccounts",
      { metadata: { name: "sa" }, automountServiceAccountToken: "yes" },
      "ServiceAccount.automountServiceAccountToken of type bool",
    ],
    [
      "/api/v1/namespaces/default/serviceaccounts",
      { metadata: { name: "sa" }, secrets: [{ name: 5 }] },
      "ObjectReference.secrets.name of type string",
    ],
    [
      "/apis/coordination.k8s.io/v1/namespaces/default/leases",
      { metadata: { name: "l" }, spec: { leaseDurationSeconds: 2 ** 31 } },
      "LeaseSpec.spec.leaseDurationSeconds of type int32",
    ],
    [
      "/api/v1/namespaces",
      { metadata: { name: "n", ownerReferences: [{ controller: "yes" }] } },
      "OwnerReference.metadata.ownerReferences.controller of type bool",
    ],
    [CM, { metadata: { name: "m", managedFields: [{ manager: 1 }] } }, "ManagedFieldsEntry.metadata.managedFields.manager of type string"],
  ])("type-checks nested fields of every built-in (%s)", async (path, body, where) => {
    const r = await t.call("POST", path, { body });
    expect(r.status).toBe(400);
    expect(r.json.message).toContain(`into Go struct field ${where}`);
  });
});

describe("numeric query parameters parse like Go's strconv.ParseInt (base 10)", () => {
  let sqlite: TestPlane;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kubekit-bad-input-"));
    sqlite = await startTestPlane({ storage: await createSqliteStorage({ path: join(dir, "state.db") }) });
    for (const name of ["q1", "q2", "q3"]) await sqlite.call("POST", CM, { body: { metadata: { name } } });
  });
  afterAll(async () => {
    await sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ["1e20", "invalid syntax"],
    ["0x10", "invalid syntax"],
    ["%201", "invalid syntax", " 1"],
    ["1.0", "invalid syntax"],
    ["", "invalid syntax"],
    ["9223372036854775808", "value out of range"],
    ["-9223372036854775809", "value out of range"],
  ])("limit=%s is a 400 on LIST and deletecollection", async (raw, problem, decoded = raw) => {
    const message = `strconv.ParseInt: parsing ${JSON.stringify(decoded)}: ${problem}`;
    expectStatus(await sqlite.call("GET", `${CM}?limit=${raw}`), 400, "BadRequest", message);
    expectStatus(await sqlite.call("GET", `/api/v1/configmaps?limit=${raw}`), 400, "BadRequest", message);
    expectStatus(await sqlite.call("DELETE", `${CM}?limit=${raw}`), 400, "BadRequest", message);
    expectStatus(await sqlite.call("GET", `${CM}?watch=true&timeoutSeconds=1&limit=${raw}`), 400, "BadRequest", message);
    expect((await sqlite.call("GET", CM)).json.items).toHaveLength(3);
  });

  it("accepts the whole int64 range, a sign and leading zeros", async () => {
    const all = await sqlite.call("GET", `${CM}?limit=9223372036854775807`);
    expect(all.status).toBe(200);
    expect(all.json.items).toHaveLength(3);
    expect(all.json.metadata.continue).toBeUndefined();
    const two = await sqlite.call("GET", `${CM}?limit=%2B02`);
    expect(two.status).toBe(200);
    expect(two.json.items).toHaveLength(2);
    expect((await sqlite.call("GET", `${CM}?limit=-1`)).json.items).toHaveLength(3);
  });

  it.each(["1e20", "0x10", "abc", "9223372036854775808"])("timeoutSeconds=%s is a 400 on LIST and WATCH", async (raw) => {
    const problem = raw === "9223372036854775808" ? "value out of range" : "invalid syntax";
    const message = `strconv.ParseInt: parsing ${JSON.stringify(raw)}: ${problem}`;
    expectStatus(await sqlite.call("GET", `${CM}?watch=true&timeoutSeconds=${raw}`), 400, "BadRequest", message);
    expectStatus(await sqlite.call("GET", `${CM}?timeoutSeconds=${raw}`), 400, "BadRequest", message);
  });

  it.each(["1e20", "0x10", "abc", " 1"])("gracePeriodSeconds=%j is a 400 and deletes nothing", async (raw) => {
    const r = await sqlite.call("DELETE", `${CM}/q1?gracePeriodSeconds=${encodeURIComponent(raw)}`);
    expectStatus(r, 400, "BadRequest", `strconv.ParseInt: parsing ${JSON.stringify(raw)}: invalid syntax`);
    expect((await sqlite.call("GET", `${CM}/q1`)).status).toBe(200);
  });
});

describe("over-deep and hostile bodies are refused at decode", () => {
  const nestedArrays = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
  const nestedObjects = (depth: number) => '{"f:a":'.repeat(depth) + "{}" + "}".repeat(depth);
  // Kubernetes' JSON decoder stops at 10,000 levels (sigs.k8s.io/json's maxNestingDepth).
  const TOO_DEEP = 10_001;

  it.each([
    ["POST", CM, JSON_TYPE, `{"metadata":{"name":"deep"},"data":${nestedArrays(TOO_DEEP)}}`],
    ["POST", CM, JSON_TYPE, `{"metadata":{"name":"deep"},"unknown":${nestedArrays(TOO_DEEP)}}`],
    [
      "POST",
      CM,
      JSON_TYPE,
      `{"metadata":{"name":"deep","managedFields":[{"manager":"m","operation":"Update","fieldsType":"FieldsV1","fieldsV1":${nestedObjects(TOO_DEEP)}}]}}`,
    ],
    ["PUT", `${CM}/target`, JSON_TYPE, `{"metadata":{"name":"target"},"unknown":${nestedArrays(TOO_DEEP)}}`],
    ["PATCH", `${CM}/target`, { "Content-Type": "application/merge-patch+json" }, `{"unknown":${nestedArrays(TOO_DEEP)}}`],
    ["PATCH", `${CM}/target`, { "Content-Type": "application/strategic-merge-patch+json" }, `{"unknown":${nestedArrays(TOO_DEEP)}}`],
    [
      "PATCH",
      `${CM}/target`,
      { "Content-Type": "application/json-patch+json" },
      `[{"op":"add","path":"/unknown","value":${nestedArrays(TOO_DEEP)}}]`,
    ],
    [
      "PATCH",
      `${CM}/target?fieldManager=m`,
      { "Content-Type": "application/apply-patch+yaml" },
      `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"target"},"unknown":${nestedArrays(TOO_DEEP)}}`,
    ],
    ["DELETE", `${CM}/target`, JSON_TYPE, `{"preconditions":${nestedArrays(TOO_DEEP)}}`],
  ])("%s %s with 10,001 levels of nesting is a 400", async (method, path, headers, raw) => {
    await t.call("POST", CM, { body: { metadata: { name: "target" } } });
    const r = await t.call(method, path, { raw, headers });
    expectStatus(r, 400, "BadRequest");
    expect(r.json.message).toContain("exceeded max depth");
    expect((await t.call("GET", `${CM}/target`)).status).toBe(200);
  });

  it.each([
    ["POST", CM, JSON_TYPE, `{"metadata":{"name":"deep-ok"},"unknown":${nestedArrays(9_999)}}`],
    [
      "POST",
      CM,
      JSON_TYPE,
      `{"metadata":{"name":"deep-mf","managedFields":[{"manager":"m","operation":"Update","fieldsType":"FieldsV1","fieldsV1":${nestedObjects(9_995)}}]}}`,
    ],
    ["PATCH", `${CM}/target`, { "Content-Type": "application/merge-patch+json" }, `{"unknown":${nestedObjects(9_998)}}`],
    ["PATCH", `${CM}/target`, { "Content-Type": "application/strategic-merge-patch+json" }, `{"unknown":${nestedObjects(9_998)}}`],
    [
      "PATCH",
      `${CM}/target`,
      { "Content-Type": "application/json-patch+json" },
      `[{"op":"add","path":"/unknown","value":${nestedObjects(9_997)}}]`,
    ],
    [
      "PATCH",
      `${CM}/target?fieldManager=m`,
      { "Content-Type": "application/apply-patch+yaml" },
      `{"metadata":{"name":"target"},"unknown":${nestedObjects(9_998)}}`,
    ],
  ])("%s %s 10,000 levels deep (the limit) never fails with 5xx", async (method, path, headers, raw) => {
    await t.call("POST", CM, { body: { metadata: { name: "target" } } });
    const r = await t.call(method, path, { raw, headers });
    expect(r.status).toBeLessThan(500);
    expect(r.text).not.toContain("exceeded max depth");
  });

  const YAML = { "Content-Type": "application/yaml" };
  const laughs = ["a: &a [x, x, x, x, x, x, x, x, x]"];
  for (const [i, name] of ["b", "c", "d", "e", "f", "g", "h", "i"].entries()) {
    const previous = String.fromCharCode("a".charCodeAt(0) + i);
    laughs.push(`${name}: &${name} [${Array(9).fill(`*${previous}`).join(", ")}]`);
  }
  const bomb = `${laughs.join("\n")}\nmetadata: {name: bomb}\n`;

  it.each([
    ["an alias bomb", CM, bomb, "error decoding YAML"],
    ["!!binary", CM, "metadata: {name: bin}\ndata: {a: !!binary aGVsbG8=}\n", "error decoding YAML"],
    ["a non-finite number", CM, "metadata: {name: inf}\nunknown: .inf\n", "error decoding YAML"],
    ["10,001 levels of flow nesting", CM, `metadata: {name: deep}\nunknown: ${nestedArrays(TOO_DEEP)}\n`, ""],
    ["an alias bomb as DeleteOptions", `${CM}/target`, bomb, "error decoding YAML"],
  ])("YAML with %s is a 400", async (_name, path, raw, message) => {
    await t.call("POST", CM, { body: { metadata: { name: "target" } } });
    const r = await t.call(path === CM ? "POST" : "DELETE", path, { raw, headers: YAML });
    expectStatus(r, 400, "BadRequest");
    expect(r.json.message).toContain(message);
    expect((await t.call("GET", `${CM}/target`)).status).toBe(200);
  });

  it("type-checks a DeleteOptions body", async () => {
    await t.call("POST", CM, { body: { metadata: { name: "target" } } });
    const r = await t.call("DELETE", `${CM}/target`, { body: { dryRun: "All", gracePeriodSeconds: "5" } });
    expectStatus(r, 400, "BadRequest");
    expect(r.json.message).toBe("json: cannot unmarshal string into Go struct field DeleteOptions.dryRun of type []string");
    expect((await t.call("GET", `${CM}/target`)).status).toBe(200);
  });

  it("refuses a DeleteOptions body in an unknown format with the media types every body accepts", async () => {
    await t.call("POST", CM, { body: { metadata: { name: "kept" } } });
    const r = await t.call("DELETE", `${CM}/kept`, { raw: "propagationPolicy=Orphan", headers: { "Content-Type": "text/plain" } });
    expectStatus(
      r,
      415,
      "UnsupportedMediaType",
      "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf",
    );
    expect((await t.call("GET", `${CM}/kept`)).status).toBe(200);
  });
});
