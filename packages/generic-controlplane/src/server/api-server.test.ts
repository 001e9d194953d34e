/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call -- tests read arbitrary JSON responses */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinResources } from "../index.js";
import { decodeProtobuf, encodeProtobuf } from "../protobuf/codec.js";
import { createResourceStore } from "../registry/index.js";
import { createMemoryStorage } from "../storage/index.js";
import { ApiServer, versionInfo } from "./index.js";
import { callerFor, configMap, startTestPlane, type TestPlane, type TestResponse } from "./test-support.js";

/**
 * A bare `ApiServer` from the `/server` entry point, serving one resource, behaves like the one
 * `createControlPlane` builds: fieldValidation, protobuf, every patch type and the Table form come
 * from the server itself, not from options a consumer has to know to pass.
 */
const CM = "/api/v1/namespaces/default/configmaps";
const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";

/** A server under test: where it listens, a request helper, and its shutdown. */
type Target = Pick<TestPlane, "url" | "call" | "close">;

let bare: Target;
let plane: TestPlane;

async function startBare(): Promise<Target> {
  const storage = createMemoryStorage({ compactInterval: 0 });
  const definition = builtinResources.configmaps;
  const server = new ApiServer({ version: versionInfo(), resources: [{ definition, store: createResourceStore(definition, storage) }] });
  const address = await server.listen(0, "127.0.0.1");
  const url = `http://127.0.0.1:${address.port}`;
  return {
    url,
    call: callerFor(url),
    async close() {
      await server.close();
      await storage.close();
    },
  };
}

beforeAll(async () => {
  [bare, plane] = await Promise.all([
    startBare(),
    startTestPlane({ resources: [builtinResources.namespaces, builtinResources.configmaps] }),
  ]);
});

afterAll(async () => {
  await Promise.all([bare?.close(), plane?.close()]);
});

/** What a response says, without what differs between two servers (uids, times, versions). */
function comparable(response: TestResponse): unknown {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (value === null || typeof value !== "object") return value;
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      if (key === "uid" || key === "creationTimestamp" || key === "resourceVersion" || key === "time") continue;
      out[key] = strip(inner);
    }
    return out;
  };
  const body = strip(response.json) as { kind?: string; columnDefinitions?: { name: string }[]; rows?: { cells: unknown[] }[] } | undefined;
  // Ages depend on when each server created its object.
  const age = body?.kind === "Table" ? (body.columnDefinitions ?? []).findIndex((column) => column.name === "Age") : -1;
  if (age >= 0) for (const row of body?.rows ?? []) row.cells.splice(age, 1);
  return { status: response.status, warning: response.headers.get("warning"), body };
}

/** Sends the same request to both servers and expects the same answer; returns the bare server's. */
async function same(method: string, path: string, init?: Parameters<Target["call"]>[2]): Promise<TestResponse> {
  const [fromBare, fromPlane] = await Promise.all([bare.call(method, path, init), plane.call(method, path, init)]);
  expect(comparable(fromBare)).toEqual(comparable(fromPlane));
  return fromBare;
}

describe("a bare ApiServer validates fields like createControlPlane", () => {
  const withUnknown = (name: string) => ({ ...configMap(name), spec: { replicas: 1 }, bogus: true });

  it("Strict rejects unknown fields with 400 naming each, in the body's order", async () => {
    const r = await same("POST", `${CM}?fieldValidation=Strict`, { body: withUnknown("strict") });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({
      kind: "Status",
      reason: "BadRequest",
      message: 'strict decoding error: unknown field "spec", unknown field "bogus"',
    });
    expect((await bare.call("GET", `${CM}/strict`)).status).toBe(404);
  });

  it("Strict rejects duplicate fields", async () => {
    const raw = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup"},"data":{"a":"1"},"data":{"b":"2"}}';
    const r = await same("POST", `${CM}?fieldValidation=Strict`, { raw, headers: { "Content-Type": "application/json" } });
    expect(r.status).toBe(400);
    expect(r.json.message).toBe('strict decoding error: duplicate field "data"');
  });

  it("Warn stores the object without the unknown fields and warns about each", async () => {
    const r = await same("POST", `${CM}?fieldValidation=Warn`, { body: withUnknown("warn") });
    expect(r.status).toBe(201);
    expect(r.headers.get("warning")).toBe('299 - "unknown field \\"spec\\"", 299 - "unknown field \\"bogus\\""');
    const stored = await same("GET", `${CM}/warn`);
    expect(stored.json.spec).toBeUndefined();
    expect(stored.json.bogus).toBeUndefined();
  });

  it("Ignore stores the object without the unknown fields, silently", async () => {
    const r = await same("POST", `${CM}?fieldValidation=Ignore`, { body: withUnknown("ignore") });
    expect(r.status).toBe(201);
    expect(r.headers.get("warning")).toBeNull();
    const stored = await same("GET", `${CM}/ignore`);
    expect(stored.json).not.toHaveProperty("spec");
    expect(stored.json).not.toHaveProperty("bogus");
  });

  it("drops unknown fields a patch adds", async () => {
    await same("POST", CM, { body: configMap("patched-unknown") });
    const r = await same("PATCH", `${CM}/patched-unknown?fieldValidation=Warn`, {
      body: { bogus: 1, data: { b: "2" } },
      headers: { "Content-Type": "application/merge-patch+json" },
    });
    expect(r.status).toBe(200);
    expect(r.json).not.toHaveProperty("bogus");
    expect(r.json.data).toEqual({ a: "1", b: "2" });
  });
});

describe("a bare ApiServer speaks protobuf like createControlPlane", () => {
  it("creates from a protobuf body", async () => {
    const raw = encodeProtobuf({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "from-proto" }, data: { p: "q" } });
    const r = await same("POST", CM, {
      raw,
      headers: { "Content-Type": "application/vnd.kubernetes.protobuf", Accept: "application/json" },
    });
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ metadata: { name: "from-proto", namespace: "default" }, data: { p: "q" } });
  });

  it("answers protobuf for an object and a list", async () => {
    const one = await fetch(`${bare.url}${CM}/from-proto`, { headers: { Accept: "application/vnd.kubernetes.protobuf" } });
    expect(one.status).toBe(200);
    expect(one.headers.get("content-type")).toBe("application/vnd.kubernetes.protobuf");
    expect(decodeProtobuf(new Uint8Array(await one.arrayBuffer()))).toMatchObject({
      kind: "ConfigMap",
      metadata: { name: "from-proto" },
      data: { p: "q" },
    });
    const list = await fetch(`${bare.url}${CM}`, { headers: { Accept: "application/vnd.kubernetes.protobuf" } });
    expect(list.status).toBe(200);
    const decoded = decodeProtobuf(new Uint8Array(await list.arrayBuffer())) as { kind?: string; items?: { metadata: { name: string } }[] };
    expect(decoded.kind).toBe("ConfigMapList");
    expect(decoded.items?.map((item) => item.metadata.name)).toContain("from-proto");
  });
});

describe("a bare ApiServer applies every patch type like createControlPlane", () => {
  beforeAll(async () => {
    await same("POST", CM, { body: configMap("patch-me", { a: "1" }, { app: "x" }) });
  });

  it.each([
    ["application/json-patch+json", [{ op: "add", path: "/data/json", value: "j" }]],
    ["application/merge-patch+json", { data: { merge: "m" } }],
    ["application/strategic-merge-patch+json", { data: { strategic: "s" }, metadata: { labels: { tier: "t" } } }],
  ])("%s", async (contentType, body) => {
    const r = await same("PATCH", `${CM}/patch-me`, { body, headers: { "Content-Type": contentType } });
    expect(r.status).toBe(200);
  });

  it("application/apply-patch+yaml", async () => {
    const r = await same("PATCH", `${CM}/patch-me?fieldManager=applier&force=true`, {
      raw: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: patch-me\ndata:\n  applied: yes-it-is\n",
      headers: { "Content-Type": "application/apply-patch+yaml" },
    });
    expect(r.status).toBe(200);
    const stored = await same("GET", `${CM}/patch-me`);
    expect(stored.json.data).toEqual({ a: "1", json: "j", merge: "m", strategic: "s", applied: "yes-it-is" });
    expect(stored.json.metadata.labels).toEqual({ app: "x", tier: "t" });
  });

  it("lists every patch type when refusing another", async () => {
    const r = await same("PATCH", `${CM}/patch-me`, { raw: "{}", headers: { "Content-Type": "application/x-unknown-patch" } });
    expect(r.status).toBe(415);
    expect(r.json.message).toContain("application/strategic-merge-patch+json");
  });
});

describe("a bare ApiServer answers the same Table as createControlPlane", () => {
  beforeAll(async () => {
    await same("POST", CM, { body: configMap("tabled", { a: "1", b: "2" }) });
  });

  it("for a list", async () => {
    const r = await same("GET", CM, { headers: { Accept: TABLE } });
    expect(r.json.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(["Name", "Data", "Age"]);
  });

  it("for one object, with the object in the row", async () => {
    const r = await same("GET", `${CM}/tabled?includeObject=Object`, { headers: { Accept: TABLE } });
    expect(r.json.rows).toHaveLength(1);
    expect(r.json.rows[0].cells.slice(0, 2)).toEqual(["tabled", 2]);
    expect(r.json.rows[0].object.data).toEqual({ a: "1", b: "2" });
  });
});
