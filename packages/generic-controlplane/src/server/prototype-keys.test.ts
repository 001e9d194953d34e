import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify as stringifyYaml } from "yaml";
import { startTestWebhookServer } from "../admission/plugin/webhooks/test-webhook-server.js";
import { establish, eventually, widgetCrd } from "../apiextensions/test-fixtures.js";
import type { JSONSchemaProps } from "../schema/types.js";
import type { KubeObject } from "../api/types.js";
import { encodeProtobuf } from "../protobuf/codec.js";
import { startTestPlane, type TestPlane } from "./test-support.js";

/**
 * A client's key is a plain string wherever it lands, as it is for kube-apiserver (Go maps and
 * structs have no prototype): `__proto__`, `constructor`, `toString`… are stored as they are in
 * maps (configmap and secret data, labels, annotations, a custom resource's maps and preserved
 * fields) and are unknown fields everywhere else (Strict 400 `unknown field`, otherwise dropped or
 * pruned). Every name of `Object.prototype` goes to every place, through every patch type and body
 * encoding, against a real server on 127.0.0.1. Besides the direct checks (no 5xx, the process's
 * `Object.prototype` untouched, the key stored or dropped as upstream does), each request is
 * repeated with an ordinary key of the same shape (`constructor` → `qqqqqqqqqqq`) and must get
 * the same answer and store the same object, names swapped.
 */

const PROTOTYPE_NAMES = [...new Set([...Object.getOwnPropertyNames(Object.prototype), "prototype", "__proto__"])].sort();
const SEED = Number(process.env["FUZZ_SEED"] ?? 4_080);
const RUNS = Number(process.env["FUZZ_RUNS"] ?? 120);

type Resource = "configmaps" | "secrets" | "roles" | "rolebindings" | "clusterroles" | "widgets" | "widgets-v2";
type Segment = string | number;

interface Place {
  label: string;
  resource: Resource;
  /** Where the key goes: the path of the object (or map) that receives it. */
  parent: Segment[];
  /** A map keeps every key; a struct has fixed fields, so the key is an unknown field. */
  kind: "map" | "field";
  /** The map's keys must be qualified names (labels, annotations). */
  qualifiedKeys?: boolean;
  values: unknown[];
}

const FIELD_VALUES = ["v", { polluted: "yes" }, 7, null, ["x"]];
const PLACES: Place[] = [
  { label: "configmap top level", resource: "configmaps", parent: [], kind: "field", values: FIELD_VALUES },
  { label: "configmap metadata", resource: "configmaps", parent: ["metadata"], kind: "field", values: FIELD_VALUES },
  // A null map value decodes as the type's zero value (""), or deletes the key in a merge.
  { label: "configmap data", resource: "configmaps", parent: ["data"], kind: "map", values: ["v", "", null] },
  { label: "configmap labels", resource: "configmaps", parent: ["metadata", "labels"], kind: "map", qualifiedKeys: true, values: ["v"] },
  {
    label: "configmap annotations",
    resource: "configmaps",
    parent: ["metadata", "annotations"],
    kind: "map",
    qualifiedKeys: true,
    values: ["v"],
  },
  { label: "secret data", resource: "secrets", parent: ["data"], kind: "map", values: ["dg=="] },
  { label: "role rule", resource: "roles", parent: ["rules", 0], kind: "field", values: FIELD_VALUES },
  { label: "rolebinding roleRef", resource: "rolebindings", parent: ["roleRef"], kind: "field", values: FIELD_VALUES },
  // The aggregation controller matches these labels against every ClusterRole's.
  {
    label: "clusterrole aggregation selector",
    resource: "clusterroles",
    parent: ["aggregationRule", "clusterRoleSelectors", 0, "matchLabels"],
    kind: "map",
    qualifiedKeys: true,
    values: ["v"],
  },
  { label: "custom resource top level", resource: "widgets", parent: [], kind: "field", values: FIELD_VALUES },
  { label: "custom resource spec", resource: "widgets", parent: ["spec"], kind: "field", values: FIELD_VALUES },
  { label: "custom resource list item", resource: "widgets", parent: ["spec", "ports", 0], kind: "field", values: FIELD_VALUES },
  // "forbidden" breaks the map's CEL rule, which must see every key; null is defaulted.
  { label: "custom resource map", resource: "widgets", parent: ["spec", "labels"], kind: "map", values: ["v", "forbidden", null] },
  {
    label: "custom resource preserved fields",
    resource: "widgets",
    parent: ["spec", "extra"],
    kind: "map",
    values: ["v", { polluted: "yes" }, 7],
  },
  {
    label: "custom resource preserved fields, deep",
    resource: "widgets",
    parent: ["spec", "extra", "deep", "x"],
    kind: "map",
    values: ["v", { polluted: "yes" }],
  },
  // Served as v2, stored as v1: every request converts.
  { label: "converted custom resource spec", resource: "widgets-v2", parent: ["spec"], kind: "field", values: FIELD_VALUES },
  {
    label: "converted custom resource map",
    resource: "widgets-v2",
    parent: ["spec", "labels"],
    kind: "map",
    values: ["v", "forbidden", null],
  },
  {
    label: "converted custom resource preserved fields",
    resource: "widgets-v2",
    parent: ["spec", "extra", "deep", "x"],
    kind: "map",
    values: ["v", { polluted: "yes" }],
  },
];

type Operation =
  | "create-json"
  | "create-yaml"
  | "create-protobuf"
  | "update-json"
  | "merge-patch"
  | "strategic-merge-patch"
  | "json-patch"
  | "apply-yaml"
  | "apply-json";
const OPERATIONS: Operation[] = [
  "create-json",
  "create-yaml",
  "create-protobuf",
  "update-json",
  "merge-patch",
  "strategic-merge-patch",
  "json-patch",
  "apply-yaml",
  "apply-json",
];
const VALIDATIONS = ["Strict", "Warn", "Ignore"] as const;
const PROTOBUF = "application/vnd.kubernetes.protobuf";

interface Case {
  place: Place;
  name: string;
  value: unknown;
  operation: Operation;
  validation: (typeof VALIDATIONS)[number];
  dryRun: boolean;
}

const COLLECTIONS: Record<Resource, string> = {
  configmaps: "/api/v1/namespaces/default/configmaps",
  secrets: "/api/v1/namespaces/default/secrets",
  roles: "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles",
  rolebindings: "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings",
  clusterroles: "/apis/rbac.authorization.k8s.io/v1/clusterroles",
  widgets: "/apis/example.com/v1/namespaces/default/widgets",
  "widgets-v2": "/apis/example.com/v2/namespaces/default/widgets",
};

function baseObject(resource: Resource, name: string): Record<string, unknown> {
  const metadata = { name, labels: { app: "x" }, annotations: { note: "x" } };
  switch (resource) {
    case "configmaps":
      return { apiVersion: "v1", kind: "ConfigMap", metadata, data: { a: "1" } };
    case "secrets":
      return { apiVersion: "v1", kind: "Secret", metadata, type: "Opaque", data: { a: "MQ==" } };
    case "roles":
      return {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "Role",
        metadata,
        rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }],
      };
    case "clusterroles":
      return {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        metadata,
        rules: [],
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { app: "x" } }] },
      };
    case "rolebindings":
      return {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "RoleBinding",
        metadata,
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "r" },
        subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "u" }],
      };
    case "widgets":
    case "widgets-v2":
      return {
        apiVersion: resource === "widgets" ? "example.com/v1" : "example.com/v2",
        kind: "Widget",
        metadata,
        spec: { color: "blue", ports: [{ name: "http", port: 80 }], labels: { a: "b" }, extra: { a: "b", deep: { x: { y: "z" } } } },
      };
  }
}

/** The widget CRD with a string map (bounded, with a CEL rule over its keys) and a preserved subtree. */
function widgetWithMaps() {
  const crd = widgetCrd();
  const spec = crd.spec!.versions![0]!.schema!.openAPIV3Schema!.properties!["spec"]!;
  const properties = spec.properties as Record<string, JSONSchemaProps>;
  properties["labels"] = {
    type: "object",
    maxProperties: 20,
    // A null value takes the default.
    additionalProperties: { type: "string", maxLength: 20, default: "defaulted" },
    "x-kubernetes-validations": [{ rule: "self.all(k, self[k] != 'forbidden')" }],
  };
  properties["extra"] = { type: "object", "x-kubernetes-preserve-unknown-fields": true };
  const stored = crd.spec!.versions![0]!;
  crd.spec!.versions!.push({ ...structuredClone(stored), name: "v2", storage: false });
  return crd;
}

/** A copy of `value` with `key` set as an own property at `parent` (never through a setter). */
function withKey(value: Record<string, unknown>, parent: Segment[], key: string, item: unknown): Record<string, unknown> {
  const copy = structuredClone(value);
  let target: Record<string, unknown> = copy;
  for (const segment of parent) target = (target as Record<Segment, Record<string, unknown>>)[segment]!;
  Object.defineProperty(target, key, { value: item, enumerable: true, writable: true, configurable: true });
  return copy;
}

function at(value: unknown, path: Segment[]): unknown {
  let current = value;
  for (const segment of path) {
    if (typeof current !== "object" || current === null || !Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<Segment, unknown>)[segment];
  }
  return current;
}

function pointer(path: Segment[]): string {
  return path.map((segment) => "/" + String(segment).replaceAll("~", "~0").replaceAll("/", "~1")).join("");
}

/** JSON with sorted keys, `__proto__` included, so two answers compare as text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** What may differ between two objects written the same way: identity and times. */
function comparable(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  const copy = JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
  const metadata = copy["metadata"] as Record<string, unknown> | undefined;
  if (metadata) {
    for (const key of ["uid", "resourceVersion", "creationTimestamp"]) delete metadata[key];
    for (const entry of (metadata["managedFields"] as Array<Record<string, unknown>> | undefined) ?? []) delete entry["time"];
  }
  return copy;
}

/** An ordinary key shaped like `name` (same length, same characters outside a-z), so the same rules apply to it. */
function controlName(name: string): string {
  return name.replace(/[a-z]/gi, "q");
}

const QUALIFIED_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

let t: TestPlane;
let sent = 0;
let serial = 0;
/** Audit events that carried a `__proto__` key in an object they logged. */
let auditedPrototypeKeys = 0;
const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort();

beforeAll(async () => {
  // RBAC on, so roles and bindings are served and every request passes the RBAC authorizer; every
  // request and response body is audited and written out as the log backend writes it.
  t = await startTestPlane({
    authorization: { modes: ["RBAC"] },
    authenticate: () => ({ name: "root", groups: ["system:masters", "system:authenticated"] }),
    audit: {
      policy: { rules: [{ level: "RequestResponse" }] },
      backend: {
        write: (event) => {
          if (JSON.stringify(event).includes('"__proto__":')) auditedPrototypeKeys++;
        },
        close: () => Promise.resolve(),
      },
    },
  });
  await establish(t, widgetWithMaps());
}, 30_000);
afterAll(async () => {
  await t?.close();
  console.log(`prototype-key property: ${sent} requests`);
});

interface Outcome {
  status: number;
  text: string;
  warning: string;
  body: unknown;
  stored: unknown;
}

async function call(method: string, path: string, contentType: string, body: string | Uint8Array) {
  sent++;
  const response = await fetch(t.url + path, { method, headers: { "Content-Type": contentType }, body });
  const text = await response.text();
  return { status: response.status, text, warning: response.headers.get("warning") ?? "" };
}

async function read(resource: Resource, name: string): Promise<unknown> {
  sent++;
  const response = await fetch(`${t.url}${COLLECTIONS[resource]}/${name}`);
  const text = await response.text();
  return response.status === 200 ? JSON.parse(text) : response.status;
}

/** Sends one case with `key` and reports what the server answered and stored. */
async function run(testCase: Case, key: string, objectName: string): Promise<Outcome> {
  const { place, value, operation, validation, dryRun } = testCase;
  const collection = COLLECTIONS[place.resource];
  const base = baseObject(place.resource, objectName);
  const full = withKey(base, place.parent, key, value);
  const query = `?fieldValidation=${validation}${dryRun ? "&dryRun=All" : ""}`;
  const item = `${collection}/${objectName}`;
  if (!operation.startsWith("create-")) {
    const created = await call("POST", collection, "application/json", JSON.stringify(base));
    expect(created.status, created.text).toBe(201);
  }
  const patch = place.parent.length === 0 ? { [key]: value } : { [place.parent[0]!]: full[place.parent[0] as string] };
  if (place.parent.length === 0) Object.defineProperty(patch, key, { value, enumerable: true, writable: true, configurable: true });
  let answer: { status: number; text: string; warning: string };
  switch (operation) {
    case "create-json":
      answer = await call("POST", collection + query, "application/json", JSON.stringify(full));
      break;
    case "create-yaml":
      answer = await call("POST", collection + query, "application/yaml", stringifyYaml(full));
      break;
    case "create-protobuf":
      // Custom resources have no protobuf form; a typed message has no unknown fields to send.
      answer = place.resource.startsWith("widgets")
        ? await call("POST", collection + query, PROTOBUF, JSON.stringify(full))
        : await call("POST", collection + query, PROTOBUF, encodeProtobuf(place.kind === "map" ? full : base));
      break;
    case "update-json":
      answer = await call("PUT", item + query, "application/json", JSON.stringify(full));
      break;
    case "merge-patch":
      answer = await call("PATCH", item + query, "application/merge-patch+json", JSON.stringify(patch));
      break;
    case "strategic-merge-patch":
      answer = await call("PATCH", item + query, "application/strategic-merge-patch+json", JSON.stringify(patch));
      break;
    case "json-patch":
      answer = await call(
        "PATCH",
        item + query,
        "application/json-patch+json",
        JSON.stringify([{ op: "add", path: pointer([...place.parent, key]), value }]),
      );
      break;
    case "apply-yaml":
      answer = await call("PATCH", `${item}${query}&fieldManager=pk&force=true`, "application/apply-patch+yaml", stringifyYaml(full));
      break;
    case "apply-json":
      answer = await call("PATCH", `${item}${query}&fieldManager=pk&force=true`, "application/apply-patch+yaml", JSON.stringify(full));
      break;
  }
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    body = answer.text;
  }
  const stored = await read(place.resource, objectName);
  return { ...answer, body, stored };
}

function expectPrototypeUntouched(): void {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeBefore);
  expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
}

/** What kube-apiserver does with the key: stores it in a map, treats it as an unknown field elsewhere. */
function expectUpstreamOutcome(testCase: Case, outcome: Outcome): void {
  const { place, name, value, operation, validation, dryRun } = testCase;
  const described = `${place.label} ${JSON.stringify(name)}=${JSON.stringify(value)} ${operation} ${validation}${dryRun ? " dry-run" : ""}: ${outcome.status} ${outcome.text.slice(0, 400)}`;
  expect(outcome.status, described).toBeLessThan(500);
  if (place.resource.startsWith("widgets") && operation === "strategic-merge-patch") {
    expect(outcome.status, described).toBe(415);
    return;
  }
  if (place.resource.startsWith("widgets") && operation === "create-protobuf") {
    expect(outcome.status, described).toBeGreaterThanOrEqual(400);
    return;
  }
  const written = [outcome.body, ...(dryRun ? [] : [outcome.stored])];
  if (place.kind === "map") {
    if ((place.qualifiedKeys && !QUALIFIED_NAME.test(name)) || value === "forbidden") {
      expect(outcome.status, described).toBe(422);
      return;
    }
    expect(outcome.status, described).toBeLessThan(300);
    if (value === null) return;
    for (const object of written) {
      expect(at(object, place.parent)).toSatisfy(
        (map: unknown) => typeof map === "object" && map !== null && Object.hasOwn(map, name),
        described,
      );
      expect(at(object, [...place.parent, name]), described).toEqual(value);
    }
    return;
  }
  if (operation === "create-protobuf") {
    expect(outcome.status, described).toBe(201);
    return;
  }
  // Server-side apply types the configuration by the schema, whatever fieldValidation says.
  if (operation.startsWith("apply-")) {
    expect(outcome.status, described).toBe(400);
    expect(outcome.text, described).toContain(`.${name}: field not declared in schema`);
    return;
  }
  // A null removes the field in a merge, so there may be nothing left to call unknown.
  if (validation === "Strict" && value !== null) {
    expect(outcome.status, described).toBe(400);
    expect(outcome.text, described).toContain("unknown field");
    expect(outcome.text, described).toContain(name);
    return;
  }
  if (validation === "Strict") expect([200, 201, 400], described).toContain(outcome.status);
  else expect(outcome.status, described).toBeLessThan(300);
  if (validation === "Warn" && value !== null) expect(outcome.warning, described).toContain("unknown field");
  for (const object of written) {
    const parent = at(object, place.parent);
    expect(typeof parent === "object" && parent !== null && Object.hasOwn(parent, name), described).toBe(false);
  }
}

async function check(testCase: Case): Promise<void> {
  const number = ++serial;
  const objectName = `pk-${number}`;
  const controlObject = `pk-${number}-c`;
  const outcome = await run(testCase, testCase.name, objectName);
  expectPrototypeUntouched();
  expectUpstreamOutcome(testCase, outcome);

  const control = controlName(testCase.name);
  const controlOutcome = await run(testCase, control, controlObject);
  const swap = (value: unknown) =>
    canonical(
      comparable(
        JSON.parse(
          JSON.stringify(value ?? null)
            .replaceAll(controlObject, objectName)
            .replaceAll(control, testCase.name),
        ),
      ),
    );
  const same = (value: unknown) => canonical(comparable(value ?? null));
  const described = `${testCase.place.label} ${testCase.name} ${testCase.operation} ${testCase.validation}`;
  expect(outcome.status, described).toBe(controlOutcome.status);
  // Compared as text, so a failure prints both objects whole.
  expect(`${described}\nanswered: ${same(outcome.body)}`).toBe(`${described}\nanswered: ${swap(controlOutcome.body)}`);
  expect(`${described}\nstored: ${same(outcome.stored)}`).toBe(`${described}\nstored: ${swap(controlOutcome.stored)}`);
  expect(outcome.warning.replaceAll(objectName, ""), described).toBe(
    controlOutcome.warning.replaceAll(controlObject, objectName).replaceAll(objectName, "").replaceAll(control, testCase.name),
  );
}

const caseArbitrary: fc.Arbitrary<Case> = fc
  .record({
    place: fc.constantFrom(...PLACES),
    name: fc.constantFrom(...PROTOTYPE_NAMES),
    operation: fc.constantFrom(...OPERATIONS),
    validation: fc.constantFrom(...VALIDATIONS),
    dryRun: fc.boolean(),
    valueIndex: fc.nat(),
  })
  .map(({ place, valueIndex, ...rest }) => ({ ...rest, place, value: place.values[valueIndex % place.values.length] }));

describe("prototype keys are ordinary keys", () => {
  it("every prototype name at every place, each place through every operation", async () => {
    // A sweep first, so coverage does not depend on the seed: each name at each place, the
    // operations and validations rotating so every place meets every operation.
    for (const [p, place] of PLACES.entries()) {
      for (const [n, name] of PROTOTYPE_NAMES.entries()) {
        const operation = OPERATIONS[(p + n) % OPERATIONS.length]!;
        const validation = VALIDATIONS[(p + n) % VALIDATIONS.length]!;
        // The two names that reach the prototype itself go with every value; the others take turns.
        const values = name === "__proto__" || name === "constructor" ? place.values : [place.values[n % place.values.length]];
        for (const value of values) await check({ place, name, operation, validation, dryRun: n % 4 === 0, value });
      }
    }
  }, 120_000);

  it("prototype names in paths, selectors and impersonation headers, then /metrics", async () => {
    const get = async (path: string, headers: Record<string, string> = {}) => {
      sent++;
      const response = await fetch(t.url + path, { headers });
      return { status: response.status, text: await response.text() };
    };
    const labelled = await call(
      "POST",
      COLLECTIONS.configmaps,
      "application/json",
      JSON.stringify({ ...baseObject("configmaps", "labelled"), metadata: { name: "labelled", labels: { constructor: "yes" } } }),
    );
    expect(labelled.status, labelled.text).toBe(201);
    for (const name of PROTOTYPE_NAMES) {
      // Each path answers as it does for an ordinary name of the same shape.
      const paths = (key: string) => [
        `${COLLECTIONS.configmaps}/${key}`,
        `${COLLECTIONS.configmaps}/labelled/${key}`,
        `/api/v1/namespaces/default/${key}`,
        `/api/v1/namespaces/default/${key}/x`,
        `/apis/${key}/v1`,
        `/apis/example.com/v1/namespaces/default/widgets/${key}`,
        `${COLLECTIONS.configmaps}?fieldSelector=${encodeURIComponent(`${key}=x`)}`,
      ];
      const controls = paths(controlName(name));
      for (const [i, path] of paths(name).entries()) {
        const answer = await get(path);
        const control = await get(controls[i]!);
        expect(answer.status, `${path}: ${answer.text}`).toBeLessThan(500);
        expect(answer.status, `${path}: ${answer.text}`).toBe(control.status);
      }
      const bySelector = await get(`${COLLECTIONS.configmaps}?labelSelector=${encodeURIComponent(name)}`);
      if (QUALIFIED_NAME.test(name)) {
        expect(bySelector.status, bySelector.text).toBe(200);
        // Only objects that carry the label match (the cases above label some with every name).
        const items = (JSON.parse(bySelector.text) as { items: KubeObject[] }).items;
        for (const item of items)
          expect(Object.hasOwn(item.metadata?.labels ?? {}, name), `${item.metadata?.name} matched ${name}`).toBe(true);
        if (name === "constructor") expect(items.map((item) => item.metadata?.name)).toContain("labelled");
      } else {
        expect(bySelector.status, bySelector.text).toBe(400);
      }
      const inNamespace = await get(`/api/v1/namespaces/${encodeURIComponent(name)}/configmaps`);
      expect(inNamespace.status, inNamespace.text).toBeLessThan(500);
      const impersonating = await get(COLLECTIONS.configmaps, { "Impersonate-User": "jane", [`Impersonate-Extra-${name}`]: "x" });
      expect(impersonating.status, impersonating.text).toBeLessThan(500);
      expectPrototypeUntouched();
    }
    const metrics = await get("/metrics");
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain("apiserver_request_total");
    expect(auditedPrototypeKeys).toBeGreaterThan(0);
  }, 60_000);

  it("an admission webhook sees prototype names as keys and patches them like any key", async () => {
    const webhook = await startTestWebhookServer({
      "/mutate": (request) => {
        const data = (request.object as { data?: Record<string, string> }).data ?? {};
        // `replace` needs the key to be there: the review must carry it as an own key.
        return {
          allowed: true,
          patch: Object.keys(data).map((key) => ({ op: "replace", path: pointer(["data", key]), value: `webhook ${data[key]}` })),
        };
      },
    });
    try {
      const configuration = {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "MutatingWebhookConfiguration",
        metadata: { name: "prototype-keys" },
        webhooks: [
          {
            name: "prototype-keys.example.com",
            clientConfig: { url: `${webhook.url}/mutate`, caBundle: webhook.ca.caBundle },
            rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
            objectSelector: { matchLabels: { "prototype-keys": "mutate" } },
            sideEffects: "None",
            admissionReviewVersions: ["v1"],
          },
        ],
      };
      const registered = await call(
        "POST",
        "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
        "application/json",
        JSON.stringify(configuration),
      );
      expect(registered.status, registered.text).toBe(201);
      const create = (name: string, data: Record<string, string>) =>
        call(
          "POST",
          COLLECTIONS.configmaps,
          "application/json",
          JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels: { "prototype-keys": "mutate" } }, data }),
        );
      // The configuration reaches admission through a watch-fed cache.
      await eventually("the webhook to mutate", async () => {
        const answer = await create(`webhook-probe-${++serial}`, { probe: "x" });
        return answer.text.includes("webhook x") ? true : undefined;
      });
      for (const name of PROTOTYPE_NAMES) {
        const data = Object.defineProperty({ a: "1" }, name, {
          value: "v",
          enumerable: true,
          writable: true,
          configurable: true,
        }) as Record<string, string>;
        const objectName = `webhook-${++serial}`;
        const created = await create(objectName, data);
        expect(created.status, created.text).toBe(201);
        const stored = (await read("configmaps", objectName)) as { data: Record<string, string> };
        expect(Object.entries(stored.data).sort(), name).toEqual(
          [
            [name, "webhook v"],
            ["a", "webhook 1"],
          ].sort(),
        );
        expectPrototypeUntouched();
      }
    } finally {
      await webhook.close();
    }
  }, 60_000);

  it("random combinations of name, place, value, operation, validation and dry run", async () => {
    await fc.assert(fc.asyncProperty(caseArbitrary, check), { seed: SEED, numRuns: RUNS, endOnFailure: true });
  }, 120_000);
});
