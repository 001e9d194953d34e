import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeObject } from "../api/types.js";
import { builtinResources } from "../control-plane/builtin-resources.js";
import type { ResourceDefinition } from "../registry/rest/resource-definition.js";
import { createSqliteStorage } from "../storage/sqlite.js";
import { fieldTypeError } from "../validation/field-types.js";
import { resolveSchema, withObjectMeta } from "../patch/schema-walk.js";
import type { JSONSchemaProps } from "../schema/types.js";
import { startTestPlane, type TestPlane } from "./test-support.js";

/**
 * Fuzzes a real server (SQLite storage, 127.0.0.1) with hostile requests: random bodies, every
 * metadata field with every JSON type, deep nesting, numeric and boolean query parameters,
 * content types, YAML specials, protobuf garbage and odd paths. Every answer must be below 500,
 * every 4xx a kube Status, and afterwards every stored object must decode as its Go type.
 *
 * Deterministic by default; FUZZ_SEED and FUZZ_RUNS override (a failure prints its seed and path).
 */
const SEED = Number(process.env["FUZZ_SEED"] ?? 18_2026);
const RUNS = Number(process.env["FUZZ_RUNS"] ?? 250);
const PARAMETERS = { seed: SEED, numRuns: RUNS, endOnFailure: true };
/** Room for FUZZ_RUNS well above the default (each run is one or two requests of a few ms). */
const TIMEOUT_MS = 20_000 + RUNS * 20;

let t: TestPlane;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "kubekit-fuzz-"));
  t = await startTestPlane({ storage: await createSqliteStorage({ path: join(dir, "state.db") }) });
  // Objects the update, patch and delete requests aim at.
  for (const name of ["a", "b"]) {
    for (const resource of RESOURCES)
      await send({ method: "POST", path: collectionPath(resource), headers: JSON_TYPE, body: JSON.stringify(seedObject(resource, name)) });
  }
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
  console.log(`fuzz: ${sent} requests sent (seed ${SEED}, ${RUNS} runs per property)`);
});

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

interface Answer {
  status: number;
  text: string;
}

const JSON_TYPE = { "Content-Type": "application/json" };
const RESOURCES: ResourceDefinition[] = Object.values(builtinResources);
const RESOURCE_NAMES = Object.keys(builtinResources) as Array<keyof typeof builtinResources>;

function collectionPath(definition: ResourceDefinition, namespace = "default"): string {
  const prefix = definition.group === "" ? `/api/${definition.version}` : `/apis/${definition.group}/${definition.version}`;
  return definition.scope === "Namespaced" ? `${prefix}/namespaces/${namespace}/${definition.plural}` : `${prefix}/${definition.plural}`;
}

function seedObject(definition: ResourceDefinition, name: string): KubeObject {
  const object: KubeObject = { metadata: { name: definition.scope === "Cluster" ? `fuzz-${name}` : name } };
  if (definition.kind === "Event")
    Object.assign(object, {
      involvedObject: { kind: "ConfigMap", namespace: "default", name: "a" },
      reportingComponent: "fuzz",
      eventTime: "2026-01-01T00:00:00.000000Z",
      reportingController: "fuzz",
      reportingInstance: "fuzz",
      action: "Fuzz",
      reason: "Fuzz",
      regarding: { kind: "ConfigMap", namespace: "default", name: "a" },
      type: "Normal",
    });
  return object;
}

function objectPath(definition: ResourceDefinition, name: string): string {
  return `${collectionPath(definition)}/${definition.scope === "Cluster" ? `fuzz-${name}` : name}`;
}

/** Requests sent, reported when the suite ends. */
let sent = 0;

/** Sends one request; a successful streaming answer (a watch) is cut off after its status line. */
async function send(request: FuzzRequest): Promise<Answer> {
  sent++;
  const init: RequestInit = { method: request.method, headers: request.headers, redirect: "manual" };
  if (request.body !== undefined) init.body = request.body;
  const response = await fetch(t.url + request.path, init);
  if (response.status < 400) {
    await response.body?.cancel();
    return { status: response.status, text: "" };
  }
  return { status: response.status, text: await response.text() };
}

function describeRequest(request: FuzzRequest): string {
  const body =
    typeof request.body === "string" ? request.body.slice(0, 300) : request.body === undefined ? "" : `<${request.body.length} bytes>`;
  return `${request.method} ${request.path} ${JSON.stringify(request.headers)} ${body}`;
}

/**
 * A resourceVersion from the future is the one 5xx kube-apiserver answers by design: 504 with a
 * `ResourceVersionTooLarge` cause, after waiting for the revision to appear.
 */
function isTooLargeResourceVersion(answer: Answer): boolean {
  return answer.status === 504 && answer.text.includes('"reason":"ResourceVersionTooLarge"');
}

/** No 5xx; every 4xx is a kube Status whose code is the HTTP status. */
function expectWellFormed(request: FuzzRequest, answer: Answer): void {
  const where = describeRequest(request);
  if (!isTooLargeResourceVersion(answer)) expect(answer.status, `${where}\n${answer.text.slice(0, 500)}`).toBeLessThan(500);
  if (answer.status < 400) return;
  let status: unknown;
  try {
    status = JSON.parse(answer.text);
  } catch {
    status = answer.text;
  }
  expect(status, where).toMatchObject({
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    code: answer.status,
    reason: expect.any(String) as string,
  });
  expect((status as { reason: string }).reason, where).not.toBe("");
}

async function check(request: FuzzRequest): Promise<void> {
  expectWellFormed(request, await send(request));
}

// ---- arbitraries --------------------------------------------------------------------------

/** Drawn by name, so a counterexample prints as `"configmaps"`. */
type ResourceName = (typeof RESOURCE_NAMES)[number];
const resource = fc.constantFrom(...RESOURCE_NAMES);
const definitionOf = (key: ResourceName): ResourceDefinition => builtinResources[key];
const name = fc.oneof(fc.constantFrom("a", "b", "c"), fc.stringMatching(/^[a-z0-9][a-z0-9.-]{0,20}$/), fc.string({ maxLength: 12 }));
const smallJson = fc.jsonValue({ maxDepth: 3 });
/** Values of every JSON type, plus the numbers that trip decoders. */
const anyValue = fc.oneof(
  smallJson,
  fc.constantFrom(null, true, 0, -1, 1.5, 2 ** 31, 2 ** 53 + 2, 1e20, -1e300, "", "yes", [], {}, [null], { a: null }),
);

const META_FIELDS = [
  "name",
  "generateName",
  "namespace",
  "uid",
  "resourceVersion",
  "selfLink",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "labels",
  "annotations",
  "finalizers",
  "ownerReferences",
  "managedFields",
];
const metadataValue = fc.oneof(
  fc.constantFrom("x", 5, [], true),
  fc.dictionary(fc.constantFrom(...META_FIELDS), anyValue, { maxKeys: 4 }).map((m) => ({ name: "c", ...m })),
  fc.record({
    name: fc.constant("c"),
    labels: fc.oneof(fc.constant(null), fc.dictionary(fc.string({ maxLength: 6 }), anyValue, { maxKeys: 3 })),
    ownerReferences: fc.array(
      fc.dictionary(fc.constantFrom("apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion"), anyValue),
      { maxLength: 2 },
    ),
    managedFields: fc.array(
      fc.dictionary(fc.constantFrom("manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1", "subresource"), anyValue),
      { maxLength: 2 },
    ),
  }),
);

/** Fields the resource's schema declares, each set to any value. */
function schemaFields(definition: ResourceDefinition): fc.Arbitrary<Record<string, unknown>> {
  const keys = Object.keys(definition.schema?.properties ?? {}).filter((k) => k !== "metadata");
  if (keys.length === 0) return fc.constant({});
  return fc.dictionary(fc.constantFrom(...keys), anyValue, { maxKeys: 3 });
}

const shortText = fc.oneof(
  fc.constantFrom(
    "",
    "a",
    "x/y",
    "Opaque",
    "2026-01-01T00:00:00Z",
    "2026-01-01T00:00:00.000000Z",
    "Apply",
    "Update",
    "FieldsV1",
    "v1",
    "True",
  ),
  fc.string({ maxLength: 10 }),
);

/** Values of the schema's own types (strings, integers, booleans, maps, lists, structs), sometimes null. */
function typedValue(given: JSONSchemaProps | undefined, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolveSchema(given);
  if (schema === undefined || depth > 5) return fc.constant(null);
  let value: fc.Arbitrary<unknown>;
  switch (schema.type) {
    case "string":
      value = schema.format === "byte" ? fc.oneof(fc.base64String({ maxLength: 12 }), shortText) : shortText;
      break;
    case "integer":
      value = fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constantFrom(2 ** 31 - 1, -(2 ** 31), 2 ** 53 - 1));
      break;
    case "number":
      value = fc.double({ noNaN: true, noDefaultInfinity: true });
      break;
    case "boolean":
      value = fc.boolean();
      break;
    case "array":
      value = fc.array(typedValue(schema.items, depth + 1), { maxLength: 3 });
      break;
    default: {
      const properties = schema.properties;
      if (properties !== undefined) {
        const fields = Object.fromEntries(Object.entries(properties).map(([key, property]) => [key, typedValue(property, depth + 1)]));
        value = fc.record(fields, { requiredKeys: [] });
      } else if (typeof schema.additionalProperties === "object") {
        value = fc.dictionary(shortText, typedValue(schema.additionalProperties, depth + 1), { maxKeys: 3 });
      } else {
        value = fc.dictionary(fc.constantFrom("f:data", "f:metadata", "f:a", "k:{}", "v:1", "."), fc.constant({}), { maxKeys: 3 });
      }
    }
  }
  return fc.oneof({ weight: 8, arbitrary: value }, { weight: 1, arbitrary: fc.constant(null) });
}

/** A well-typed object of the resource (so it gets past decoding into validation and storage). */
function typedObject(definition: ResourceDefinition): fc.Arbitrary<Record<string, unknown>> {
  const root = withObjectMeta(definition.schema ?? { type: "object" });
  const { metadata: _metadata, apiVersion: _apiVersion, kind: _kind, ...fields } = root.properties ?? {};
  return fc.record(
    {
      ...Object.fromEntries(Object.entries(fields).map(([key, property]) => [key, typedValue(property)])),
      metadata: fc
        .tuple(typedValue(root.properties?.["metadata"]), name)
        .map(([metadata, objectName]) => ({ ...(metadata as object), name: objectName })),
    },
    { requiredKeys: ["metadata"] },
  );
}

const objectBody = resource.chain((key) =>
  fc.record({
    resource: fc.constant(key),
    object: fc.oneof(
      typedObject(definitionOf(key)),
      fc
        .tuple(
          fc.option(metadataValue, { nil: undefined }),
          schemaFields(definitionOf(key)),
          fc.dictionary(fc.string({ maxLength: 8 }), smallJson, { maxKeys: 2 }),
        )
        .map(([metadata, fields, extra]) => ({ ...extra, ...fields, ...(metadata === undefined ? {} : { metadata }) })),
    ),
  }),
);

function nested(depth: number, kind: "array" | "object"): string {
  return kind === "array" ? "[".repeat(depth) + "]".repeat(depth) : '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
}

const PATCH_TYPES = [
  "application/json-patch+json",
  "application/merge-patch+json",
  "application/strategic-merge-patch+json",
  "application/apply-patch+yaml",
];
const CONTENT_TYPES = [
  "application/json",
  "application/yaml",
  "application/vnd.kubernetes.protobuf",
  "text/plain",
  "application/json; charset=utf-16",
  "application/x-www-form-urlencoded",
  "*/*",
  "application/json;stream=watch",
  "application/json;as=Table;g=meta.k8s.io;v=v1",
  "multipart/form-data; boundary=x",
  ...PATCH_TYPES,
];

const jsonPatch = fc.array(
  fc.record(
    {
      op: fc.oneof(fc.constantFrom("add", "remove", "replace", "move", "copy", "test"), fc.string({ maxLength: 5 }), fc.constant(5)),
      path: fc.oneof(
        fc.constantFrom(
          "/metadata/labels",
          "/metadata/labels/x",
          "/data",
          "/data/-",
          "/immutable",
          "/metadata",
          "/metadata/finalizers/0",
          "/spec",
          "/",
          "",
          "/metadata/managedFields",
        ),
        fc.string({ maxLength: 10 }),
      ),
      from: fc.constantFrom("/metadata/name", "/data", "/x"),
      value: anyValue,
    },
    { requiredKeys: ["op"] },
  ),
  { maxLength: 3 },
);

const queryKey = fc.constantFrom(
  "limit",
  "continue",
  "timeoutSeconds",
  "gracePeriodSeconds",
  "watch",
  "allowWatchBookmarks",
  "sendInitialEvents",
  "resourceVersion",
  "resourceVersionMatch",
  "labelSelector",
  "fieldSelector",
  "dryRun",
  "fieldManager",
  "fieldValidation",
  "force",
  "propagationPolicy",
  "orphanDependents",
  "pretty",
  "includeObject",
  "timeout",
);
const queryValue = fc.oneof(
  fc.constantFrom(
    "",
    "0",
    "1",
    "-1",
    "+2",
    "1e20",
    "0x10",
    " 1",
    "1.0",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "2147483648",
    "true",
    "True",
    "yes",
    "All",
    "Strict",
    "x=y",
    "!x",
    "a in (b",
    "metadata.name=a",
    "Exact",
    "NotOlderThan",
    "Orphan",
    "\u0000",
    "%",
  ),
  fc.string({ maxLength: 12 }),
  fc.integer().map(String),
);
const query = fc
  .array(fc.tuple(queryKey, queryValue), { maxLength: 4 })
  .map((pairs) => pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("&"));

const yamlSpecial = fc.constantFrom(
  "metadata: {name: y1}\ndata: {a: !!binary aGVsbG8=}\n",
  "metadata: {name: y2}\ndata: !!set {a, b}\n",
  "metadata: {name: y3}\ndata: !!omap [a: b]\n",
  "metadata: {name: y4}\ndata: {a: 2001-12-14t21:59:43.10-05:00}\n",
  "metadata: {name: y5}\nimmutable: .nan\n",
  "metadata: {name: y6}\nx: .inf\n",
  "metadata: &m {name: y7}\nother: *m\n",
  "base: &b {a: x}\nmetadata: {name: y8}\ndata: {<<: *b}\n",
  "metadata: {name: y9}\n---\nmetadata: {name: y10}\n",
  "? [a, b]\n: c\nmetadata: {name: y11}\n",
  "metadata: {name: y12}\ndata: {1: 2, true: false, null: ~}\n",
  "metadata: {name: y13, labels: {a: 0x10, b: 0o7, c: 1_000}}\n",
  "metadata: {name: y14}\ndata: {a: !custom x}\n",
  "%YAML 1.1\n---\nmetadata: {name: y15}\n",
  "metadata: {name: *undefined}\n",
  "metadata: {name: y16}\nunknown: 123456789012345678901234567890\n",
  "\t- tab\n",
  "metadata:\n  name: y17\n  generation: 1e400\n",
  "[1, 2]\n",
  "~\n",
);
const yamlBomb = fc.integer({ min: 2, max: 12 }).map((levels) => {
  const lines = ["l0: &l0 [x, x, x, x, x, x, x, x, x]"];
  for (let i = 1; i < levels; i++)
    lines.push(
      `l${i}: &l${i} [${Array<string>(9)
        .fill(`*l${i - 1}`)
        .join(", ")}]`,
    );
  return `${lines.join("\n")}\nmetadata: {name: bomb}\n`;
});

const protobufGarbage = fc.oneof(
  fc.uint8Array({ maxLength: 64 }),
  fc.uint8Array({ maxLength: 64 }).map((tail) => Uint8Array.from([0x6b, 0x38, 0x73, 0x00, ...tail])),
  // An envelope whose TypeMeta claims a ConfigMap, followed by random raw bytes.
  fc.uint8Array({ maxLength: 48 }).map((raw) => {
    const typeMeta = Buffer.concat([Buffer.from([0x0a, 0x02]), Buffer.from("v1"), Buffer.from([0x12, 0x09]), Buffer.from("ConfigMap")]);
    return Uint8Array.from([0x6b, 0x38, 0x73, 0x00, 0x0a, typeMeta.length, ...typeMeta, 0x12, raw.length, ...raw]);
  }),
);

// Health endpoints (`/healthz/<check>`) answer in plain text and are another suite's concern.
const PATH_SEGMENTS = [
  "api",
  "apis",
  "v1",
  "v2",
  "namespaces",
  "default",
  "kube-system",
  "configmaps",
  "secrets",
  "status",
  "finalize",
  "watch",
  "coordination.k8s.io",
  "events.k8s.io",
  "leases",
  "events",
  "x",
  "",
  "..",
  ".",
  "%2F",
  "%00",
  "a%20b",
  "openapi",
  "version",
  "proxy",
  "scale",
  "namespaces/default",
];
const path = fc
  .array(fc.oneof(fc.constantFrom(...PATH_SEGMENTS), fc.string({ maxLength: 6 }).map(encodeURIComponent)), { minLength: 1, maxLength: 7 })
  .map((segments) => `/${segments.join("/")}`);
const method = fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS");

// ---- properties ---------------------------------------------------------------------------

describe("fuzzing the server never yields a 5xx or a non-Status error", () => {
  it(
    "object bodies with any field of any type, via POST and PUT",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          objectBody,
          fc.boolean(),
          fc.constantFrom("", "?fieldValidation=Strict", "?fieldValidation=Ignore", "?dryRun=All"),
          async ({ resource: key, object }, update, options) => {
            const definition = definitionOf(key);
            const target = update ? objectPath(definition, "a") : collectionPath(definition);
            await check({ method: update ? "PUT" : "POST", path: target + options, headers: JSON_TYPE, body: JSON.stringify(object) });
          },
        ),
        PARAMETERS,
      );
    },
    TIMEOUT_MS,
  );

  it(
    "patches of every type with any content",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          resource,
          fc.constantFrom(...PATCH_TYPES),
          fc.oneof(
            jsonPatch,
            objectBody.map((b) => b.object),
            anyValue,
          ),
          fc.constantFrom("", "?fieldManager=fuzz", "?fieldManager=fuzz&force=true", "?fieldValidation=Strict"),
          async (key, contentType, patch, options) => {
            const definition = definitionOf(key);
            await check({
              method: "PATCH",
              path: objectPath(definition, "b") + options,
              headers: { "Content-Type": contentType },
              body: JSON.stringify(patch),
            });
          },
        ),
        PARAMETERS,
      );
    },
    TIMEOUT_MS,
  );

  it(
    "nesting around the depth limit in bodies, patches and managedFields",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 990, max: 1010 }),
          fc.constantFrom<"array" | "object">("array", "object"),
          fc.constantFrom("post", "put", "merge", "smp", "json", "apply", "managedFields", "yaml"),
          async (depth, kind, where) => {
            const deep = nested(depth, kind);
            const cm = "/api/v1/namespaces/default/configmaps";
            const requests: Record<string, FuzzRequest> = {
              post: { method: "POST", path: cm, headers: JSON_TYPE, body: `{"metadata":{"name":"deep"},"x":${deep}}` },
              put: { method: "PUT", path: `${cm}/b`, headers: JSON_TYPE, body: `{"metadata":{"name":"b"},"x":${deep}}` },
              merge: {
                method: "PATCH",
                path: `${cm}/b`,
                headers: { "Content-Type": "application/merge-patch+json" },
                body: `{"x":${deep}}`,
              },
              smp: {
                method: "PATCH",
                path: `${cm}/b`,
                headers: { "Content-Type": "application/strategic-merge-patch+json" },
                body: `{"x":${deep}}`,
              },
              json: {
                method: "PATCH",
                path: `${cm}/b`,
                headers: { "Content-Type": "application/json-patch+json" },
                body: `[{"op":"add","path":"/x","value":${deep}}]`,
              },
              apply: {
                method: "PATCH",
                path: `${cm}/b?fieldManager=fuzz`,
                headers: { "Content-Type": "application/apply-patch+yaml" },
                body: `{"metadata":{"name":"b"},"x":${deep}}`,
              },
              managedFields: {
                method: "POST",
                path: `${cm}?dryRun=All`,
                headers: JSON_TYPE,
                body: `{"metadata":{"name":"mf","managedFields":[{"manager":"m","operation":"Update","fieldsType":"FieldsV1","fieldsV1":${deep}}]}}`,
              },
              yaml: {
                method: "POST",
                path: cm,
                headers: { "Content-Type": "application/yaml" },
                body: `metadata: {name: deep-yaml}\nx: ${deep}\n`,
              },
            };
            await check(requests[where] as FuzzRequest);
          },
        ),
        { ...PARAMETERS, numRuns: Math.min(RUNS, 60) },
      );
    },
    TIMEOUT_MS,
  );

  it(
    "numeric, boolean and selector query parameters on every verb",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          resource,
          query,
          fc.constantFrom("LIST", "WATCH", "GET", "POST", "PUT", "PATCH", "DELETE", "DELETECOLLECTION"),
          async (key, search, verb) => {
            const definition = definitionOf(key);
            const collection = collectionPath(definition);
            const item = objectPath(definition, "c");
            const body = JSON.stringify(seedObject(definition, "c"));
            const requests: Record<string, FuzzRequest> = {
              LIST: { method: "GET", path: `${collection}?${search}`, headers: {} },
              WATCH: { method: "GET", path: `${collection}?watch=true&timeoutSeconds=1&${search}`, headers: {} },
              GET: { method: "GET", path: `${item}?${search}`, headers: {} },
              POST: { method: "POST", path: `${collection}?${search}`, headers: JSON_TYPE, body },
              PUT: { method: "PUT", path: `${item}?${search}`, headers: JSON_TYPE, body },
              PATCH: {
                method: "PATCH",
                path: `${item}?${search}`,
                headers: { "Content-Type": "application/merge-patch+json" },
                body: '{"metadata":{"labels":{"fuzz":"x"}}}',
              },
              DELETE: { method: "DELETE", path: `${item}?${search}`, headers: {} },
              DELETECOLLECTION: { method: "DELETE", path: `${collection}?labelSelector=fuzz-never&${search}`, headers: {} },
            };
            await check(requests[verb] as FuzzRequest);
          },
        ),
        PARAMETERS,
      );
    },
    TIMEOUT_MS,
  );

  it(
    "bodies in every content type, YAML specials and protobuf garbage",
    async () => {
      const body = fc.oneof(
        objectBody.map((b) => JSON.stringify(b.object) as string | Uint8Array),
        yamlSpecial,
        yamlBomb,
        protobufGarbage,
        fc.string({ maxLength: 40 }),
      );
      await fc.assert(
        fc.asyncProperty(
          resource,
          fc.oneof(fc.constantFrom(...CONTENT_TYPES), fc.string({ maxLength: 20 })),
          fc.constantFrom("POST", "PUT", "PATCH", "DELETE"),
          body,
          fc.constantFrom(
            undefined,
            "application/json",
            "application/yaml",
            "application/vnd.kubernetes.protobuf",
            "text/html",
            "application/json;as=Table;v=v1;g=meta.k8s.io",
          ),
          async (key, contentType, verb, payload, accept) => {
            const definition = definitionOf(key);
            const target = verb === "POST" ? collectionPath(definition) : objectPath(definition, "b");
            const headers: Record<string, string> = { "Content-Type": contentType };
            // Protobuf answers are Status messages too, but this suite reads JSON ones.
            if (accept !== undefined && accept !== "application/vnd.kubernetes.protobuf") headers["Accept"] = accept;
            await check({ method: verb, path: target, headers, body: payload });
          },
        ),
        PARAMETERS,
      );
    },
    TIMEOUT_MS,
  );

  it(
    "paths, methods and empty or random bodies",
    async () => {
      await fc.assert(
        fc.asyncProperty(method, path, fc.option(fc.string({ maxLength: 30 }), { nil: undefined }), async (verb, target, payload) => {
          const request: FuzzRequest = { method: verb, path: target, headers: JSON_TYPE };
          if (payload !== undefined && verb !== "GET") request.body = payload;
          await check(request);
        }),
        PARAMETERS,
      );
    },
    TIMEOUT_MS,
  );

  it("leaves nothing stored that a Go client could not decode", async () => {
    for (const definition of RESOURCES) {
      const prefix = definition.group === "" ? `/api/${definition.version}` : `/apis/${definition.group}/${definition.version}`;
      const response = await fetch(`${t.url}${prefix}/${definition.plural}`);
      expect(response.status).toBe(200);
      const list = (await response.json()) as { items: KubeObject[] };
      for (const item of list.items) {
        const copy = structuredClone(item);
        expect(fieldTypeError(copy, definition.schema, { kind: definition.kind }), JSON.stringify(item).slice(0, 500)).toBeUndefined();
        // Nothing was null where Go would have written a zero value.
        expect(copy, JSON.stringify(item).slice(0, 500)).toEqual(item);
      }
    }
  });
});
