/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read arbitrary JSON responses */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { establish } from "../src/apiextensions/test-fixtures.js";
import type { CustomResourceDefinition } from "../src/apiextensions/types.js";
import { startTestPlane, type TestPlane, type TestResponse } from "../src/server/test-support.js";

/**
 * Server-side field validation of custom resources: the FieldValidation Conformance tests on CRs
 * (test/e2e/apimachinery/field_validation.go), and the Strict/Warn/Ignore cases of POSTing a CR
 * from upstream's integration test (test/integration/apiserver/fieldvalidation_test.go,
 * `testFieldValidationPostCRD` and `...Schemaless`).
 */

let t: TestPlane;
beforeAll(async () => {
  t = await startTestPlane();
});
afterAll(async () => {
  await t.close();
});

let counter = 0;
const allowAll = { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } };

/** apiextensions' `NewRandomNameMultipleVersionCustomResourceDefinition`: cluster-scoped, v1beta1 and v1 served. */
function noxuDefinition(schema: unknown = allowAll): CustomResourceDefinition {
  const name = `foo${++counter}${Math.random().toString(36).slice(2, 7)}`;
  const group = `${name}.example.com`;
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${name}s.${group}` },
    spec: {
      group,
      scope: "Cluster",
      names: { plural: `${name}s`, singular: name, kind: name, listKind: `${name}List` },
      versions: [
        { name: "v1beta1", served: true, storage: true, schema: schema as never },
        { name: "v1", served: true, storage: false, schema: schema as never },
      ],
    },
  };
}

const cronSpec = { type: "string", pattern: "^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$" };
const ports = {
  type: "array",
  "x-kubernetes-list-map-keys": ["containerPort", "protocol"],
  "x-kubernetes-list-type": "map",
  items: {
    type: "object",
    required: ["containerPort", "protocol"],
    properties: {
      containerPort: { format: "int32", type: "integer" },
      hostIP: { type: "string" },
      hostPort: { format: "int32", type: "integer" },
      name: { type: "string" },
      protocol: { type: "string" },
    },
  },
};

/** The e2e tests' schema: spec.foo, spec.cronSpec and the ports list map; `spec` optionally preserving unknown fields, with extra properties. */
function e2eSchema(spec: Record<string, unknown> = {}, extraProperties: Record<string, unknown> = {}) {
  return {
    openAPIV3Schema: {
      type: "object",
      properties: { spec: { type: "object", ...spec, properties: { ...extraProperties, foo: { type: "string" }, cronSpec, ports } } },
    },
  };
}

interface Served {
  crd: CustomResourceDefinition;
  apiVersion: string;
  kind: string;
  collection: string;
}

async function serve(crd: CustomResourceDefinition): Promise<Served> {
  const established = await establish(t, crd);
  const { group, names, versions } = established.spec!;
  const version = versions![0]!.name!;
  return {
    crd: established,
    apiVersion: `${group}/${version}`,
    kind: names!.kind!,
    collection: `/apis/${group}/${version}/${names!.plural}`,
  };
}

/** The e2e tests' request: server-side apply of a YAML body with fieldManager and fieldValidation=Strict. */
function applyStrict(served: Served, name: string, yaml: string): Promise<TestResponse> {
  return t.call("PATCH", `${served.collection}/${name}?fieldManager=field_validation_mgr&fieldValidation=Strict`, {
    raw: yaml,
    headers: { "Content-Type": "application/apply-patch+yaml" },
  });
}

/** The `Warning` header's texts, in order (`299 - "<text>"` each, comma-separated). */
function warnings(response: TestResponse): string[] {
  const header = response.headers.get("warning");
  if (header === null) return [];
  return [...header.matchAll(/299 - "((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\(.)/g, "$1"));
}

describe("[sig-api-machinery] FieldValidation on custom resources", () => {
  it("should create/apply a CR with unknown fields for CRD with no validation schema", async () => {
    const served = await serve(noxuDefinition());
    const applied = await applyStrict(
      served,
      "mytest",
      `
apiVersion: ${served.apiVersion}
kind: ${served.kind}
metadata:
  name: mytest
  finalizers:
  - test-finalizer
spec:
  unknown: uk1
  cronSpec: "* * * * */5"
  ports:
  - name: x
    containerPort: 80
    protocol: TCP`,
    );
    expect(applied.status, applied.text).toBe(201);
    expect(applied.json.spec).toEqual({
      unknown: "uk1",
      cronSpec: "* * * * */5",
      ports: [{ name: "x", containerPort: 80, protocol: "TCP" }],
    });
  });

  it("should create/apply a valid CR for CRD with validation schema", async () => {
    const served = await serve(noxuDefinition(e2eSchema()));
    const applied = await applyStrict(
      served,
      "mytest",
      `
apiVersion: ${served.apiVersion}
kind: ${served.kind}
metadata:
  name: mytest
  finalizers:
  - test-finalizer
spec:
  foo: foo1
  cronSpec: "* * * * */5"
  ports:
  - name: x
    containerPort: 80
    protocol: TCP`,
    );
    expect(applied.status, applied.text).toBe(201);
    expect(applied.json.spec).toEqual({ foo: "foo1", cronSpec: "* * * * */5", ports: [{ name: "x", containerPort: 80, protocol: "TCP" }] });
  });

  it("should create/apply an invalid CR with extra properties for CRD with validation schema", async () => {
    const served = await serve(noxuDefinition(e2eSchema()));
    const refused = await applyStrict(
      served,
      "mytest",
      `
apiVersion: ${served.apiVersion}
kind: ${served.kind}
metadata:
  name: mytest
  finalizers:
  - test-finalizer
unknownField: unknown
spec:
  foo: foo1
  cronSpec: "* * * * */5"
  ports:
  - name: x
    containerPort: 80
    protocol: TCP`,
    );
    expect(refused.status).toBe(400);
    expect(refused.text).toContain(".unknownField: field not declared in schema");
    expect((await t.call("GET", `${served.collection}/mytest`)).status).toBe(404);
  });

  it("should detect unknown metadata fields in both the root and embedded object of a CR", async () => {
    const template = {
      type: "object",
      "x-kubernetes-embedded-resource": true,
      properties: { metadata: { type: "object", properties: { name: { type: "string" } } }, spec: { type: "object" } },
    };
    const served = await serve(noxuDefinition(e2eSchema({ "x-kubernetes-preserve-unknown-fields": true }, { template })));
    const refused = await applyStrict(
      served,
      "mytest",
      `
apiVersion: ${served.apiVersion}
kind: ${served.kind}
metadata:
  name: mytest
  unknownMeta: unknown
  finalizers:
  - test-finalizer
spec:
  template:
    apiversion: foo/v1
    kind: Sub
    metadata:
        unknownSubMeta: unknown
        name: subobject
        namespace: default
  foo: foo1
  cronSpec: "* * * * */5"
  ports:
  - name: x
    containerPort: 80
    protocol: TCP`,
    );
    expect(refused.status).toBe(400);
    // Upstream accepts either field being reported (the order is not specified).
    expect(
      [".spec.template.metadata.unknownSubMeta: field not declared in schema", ".metadata.unknownMeta: field not declared in schema"].some(
        (m) => refused.text.includes(m),
      ),
      refused.text,
    ).toBe(true);
    expect((await t.call("GET", `${served.collection}/mytest`)).status).toBe(404);
  });

  it("should detect duplicates in a CR when preserving unknown fields", async () => {
    const served = await serve(noxuDefinition(e2eSchema({ "x-kubernetes-preserve-unknown-fields": true })));
    const refused = await applyStrict(
      served,
      "mytest",
      `
apiVersion: ${served.apiVersion}
kind: ${served.kind}
metadata:
  name: mytest
  finalizers:
  - test-finalizer
spec:
  unknown: uk1
  foo: foo1
  foo: foo2
  cronSpec: "* * * * */5"
  ports:
  - name: x
    containerPort: 80
    protocol: TCP`,
    );
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('line 11: key \\"foo\\" already set in map');
    expect((await t.call("GET", `${served.collection}/mytest`)).status).toBe(404);
  });
});

/** The integration test's CRD schema: spec.cronSpec, knownField1, an embedded resource and the ports list map. */
function integrationSchema(preserveUnknownInSpec: boolean) {
  const embeddedObj = {
    "x-kubernetes-embedded-resource": true,
    type: "object",
    properties: { apiversion: { type: "string" }, kind: { type: "string" }, metadata: { type: "object" } },
  };
  return {
    openAPIV3Schema: {
      type: "object",
      properties: {
        spec: {
          type: "object",
          ...(preserveUnknownInSpec ? { "x-kubernetes-preserve-unknown-fields": true } : {}),
          properties: { cronSpec, knownField1: { type: "string" }, embeddedObj, ports },
        },
      },
    },
  };
}

const crdInvalidBody = (apiVersion: string, kind: string, name: string) => `
{
	"apiVersion": "${apiVersion}",
	"kind": "${kind}",
	"metadata": {
		"name": "dupename",
		"name": "${name}",
		"unknownMeta": "metaVal"
	},
	"spec": {
		"unknown1": "val1",
		"unknownDupe": "valDupe",
		"unknownDupe": "valDupe2",
		"knownField1": "val1",
		"knownField1": "val2",
			"ports": [{
				"name": "portName",
				"containerPort": 8080,
				"protocol": "TCP",
				"hostPort": 8081,
				"hostPort": 8082,
				"unknownNested": "val"
			}],
		"embeddedObj": {
			"apiVersion": "v1",
			"kind": "ConfigMap",
			"metadata": {
				"name": "my-cm",
				"namespace": "my-ns",
				"unknownEmbeddedMeta": "foo"
			}
		}
	}
}`;

const crdInvalidBodyYAML = (apiVersion: string, kind: string, name: string) => `
apiVersion: "${apiVersion}"
kind: "${kind}"
metadata:
  name: dupename
  name: "${name}"
  resourceVersion: ""
  unknownMeta: metaVal
spec:
  unknown1: val1
  unknownDupe: valDupe
  unknownDupe: valDupe2
  knownField1: val1
  knownField1: val2
  ports:
  - name: portName
    containerPort: 8080
    protocol: TCP
    hostPort: 8081
    hostPort: 8082
    unknownNested: val
  embeddedObj:
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: my-cm
      namespace: my-ns
      unknownEmbeddedMeta: foo`;

const duplicates = [
  'duplicate field "metadata.name"',
  'duplicate field "spec.unknownDupe"',
  'duplicate field "spec.knownField1"',
  'duplicate field "spec.ports[0].hostPort"',
];
const yamlDuplicates = [
  'line 6: key "name" already set in map',
  'line 12: key "unknownDupe" already set in map',
  'line 14: key "knownField1" already set in map',
  'line 20: key "hostPort" already set in map',
];
const unknownWithSchema = [
  'unknown field "metadata.unknownMeta"',
  'unknown field "spec.ports[0].unknownNested"',
  'unknown field "spec.unknown1"',
  'unknown field "spec.unknownDupe"',
  'unknown field "spec.embeddedObj.metadata.unknownEmbeddedMeta"',
];
const unknownSchemaless = [
  'unknown field "metadata.unknownMeta"',
  'unknown field "spec.ports[0].unknownNested"',
  'unknown field "spec.embeddedObj.metadata.unknownEmbeddedMeta"',
];

describe.each([
  { schema: "with a schema", preserveUnknownInSpec: false, unknown: unknownWithSchema },
  { schema: "preserving unknown fields in spec (schemaless)", preserveUnknownInSpec: true, unknown: unknownSchemaless },
])("FieldValidation of a CR POST, $schema", ({ preserveUnknownInSpec, unknown }) => {
  let served: Served;
  beforeAll(async () => {
    served = await serve(noxuDefinition(integrationSchema(preserveUnknownInSpec)));
  });

  const post = (name: string, body: string, contentType: string, fieldValidation?: string) =>
    t.call("POST", `${served.collection}${fieldValidation === undefined ? "" : `?fieldValidation=${fieldValidation}`}`, {
      raw: body,
      headers: { "Content-Type": contentType },
    });

  it("Strict refuses the JSON body, naming every duplicate and unknown field", async () => {
    const refused = await post(
      "crd-post-strict-validation",
      crdInvalidBody(served.apiVersion, served.kind, "crd-post-strict-validation"),
      "application/json",
      "Strict",
    );
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ kind: "Status", reason: "BadRequest", code: 400 });
    expect(refused.json.message).toBe(`strict decoding error: ${[...duplicates, ...unknown].join(", ")}`);
    expect((await t.call("GET", `${served.collection}/crd-post-strict-validation`)).status).toBe(404);
  });

  it("Warn and the default create the object with one warning per field; Ignore creates it silently", async () => {
    for (const [name, fieldValidation] of [
      ["crd-post-warn-validation", "Warn"],
      ["crd-post-no-validation", undefined],
    ] as const) {
      const created = await post(name, crdInvalidBody(served.apiVersion, served.kind, name), "application/json", fieldValidation);
      expect(created.status, created.text).toBe(201);
      expect(warnings(created)).toEqual([...duplicates, ...unknown]);
    }
    const ignored = await post(
      "crd-post-ignore-validation",
      crdInvalidBody(served.apiVersion, served.kind, "crd-post-ignore-validation"),
      "application/json",
      "Ignore",
    );
    expect(ignored.status, ignored.text).toBe(201);
    expect(warnings(ignored)).toEqual([]);
    // The last duplicate wins; unknown fields are pruned unless preserved.
    expect(ignored.json.spec.knownField1).toBe("val2");
    expect(ignored.json.spec.ports).toEqual([{ name: "portName", containerPort: 8080, protocol: "TCP", hostPort: 8082 }]);
    expect(ignored.json.metadata.unknownMeta).toBeUndefined();
    expect(ignored.json.spec.unknown1).toBe(preserveUnknownInSpec ? "val1" : undefined);
  });

  it("Strict refuses the YAML body with the YAML decoder's line numbers for duplicates", async () => {
    const refused = await post(
      "crd-post-strict-validation-yaml",
      crdInvalidBodyYAML(served.apiVersion, served.kind, "crd-post-strict-validation-yaml"),
      "application/yaml",
      "Strict",
    );
    expect(refused.status).toBe(400);
    expect(refused.json.message).toBe(
      `strict decoding error: yaml: unmarshal errors:\n  ${yamlDuplicates.join("\n  ")}, ${unknown.join(", ")}`,
    );
  });

  it("Warn and the default warn about the YAML body's duplicates by line; Ignore is silent", async () => {
    for (const [name, fieldValidation] of [
      ["crd-post-warn-validation-yaml", "Warn"],
      ["crd-post-no-validation-yaml", undefined],
    ] as const) {
      const created = await post(name, crdInvalidBodyYAML(served.apiVersion, served.kind, name), "application/yaml", fieldValidation);
      expect(created.status, created.text).toBe(201);
      expect(warnings(created)).toEqual([...yamlDuplicates, ...unknown]);
    }
    const ignored = await post(
      "crd-post-ignore-validation-yaml",
      crdInvalidBodyYAML(served.apiVersion, served.kind, "crd-post-ignore-validation-yaml"),
      "application/yaml",
      "Ignore",
    );
    expect(ignored.status, ignored.text).toBe(201);
    expect(warnings(ignored)).toEqual([]);
  });
});

describe("FieldValidation of a CR apply (testFieldValidationApplyCreateCRD)", () => {
  // Upstream's crdApplyInvalidBody, leading newline included (go-yaml counts it).
  const applyBody = (apiVersion: string, kind: string, name: string) => `
{
	"apiVersion": "${apiVersion}",
	"kind": "${kind}",
	"metadata": {
		"name": "${name}"
	},
	"spec": {
		"knownField1": "val1",
		"knownField1": "val2",
		"ports": [{
			"name": "portName",
			"containerPort": 8080,
			"protocol": "TCP",
			"hostPort": 8081,
			"hostPort": 8082
		}],
		"embeddedObj": {
			"apiVersion": "v1",
			"kind": "ConfigMap",
			"metadata": {
				"name": "my-cm",
				"namespace": "my-ns"
			}
		}
	}
}`;
  const apply = (served: Served, name: string, fieldValidation: string, body: string) =>
    t.call("PATCH", `${served.collection}/${name}?fieldManager=mgr&fieldValidation=${fieldValidation}`, {
      raw: body,
      headers: { "Content-Type": "application/apply-patch+yaml" },
    });

  it("Strict refuses duplicates with go-yaml's lines, Warn sends one warning per line, Ignore is silent", async () => {
    const served = await serve(noxuDefinition(integrationSchema(false)));
    const strict = await apply(served, "apply-strict", "Strict", applyBody(served.apiVersion, served.kind, "apply-strict"));
    expect(strict.status).toBe(400);
    expect(strict.json.message).toBe(
      'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 10: key "knownField1" already set in map\n  line 16: key "hostPort" already set in map',
    );
    const warned = await apply(served, "apply-warn", "Warn", applyBody(served.apiVersion, served.kind, "apply-warn"));
    expect(warned.status, warned.text).toBe(201);
    expect(warnings(warned)).toEqual(['line 10: key "knownField1" already set in map', 'line 16: key "hostPort" already set in map']);
    const ignored = await apply(served, "apply-ignore", "Ignore", applyBody(served.apiVersion, served.kind, "apply-ignore"));
    expect(ignored.status, ignored.text).toBe(201);
    expect(warnings(ignored)).toEqual([]);
    expect(ignored.json.spec.knownField1).toBe("val2");
  });

  it("refuses fields the schema does not declare whatever fieldValidation says, naming list items by their keys", async () => {
    const served = await serve(noxuDefinition(integrationSchema(false)));
    for (const fieldValidation of ["Strict", "Warn", "Ignore"]) {
      const body = `{"apiVersion":"${served.apiVersion}","kind":"${served.kind}","metadata":{"name":"undeclared"},"spec":{"bogus":1,"ports":[{"containerPort":80,"protocol":"TCP","extra":true}]}}`;
      const refused = await apply(served, "undeclared", fieldValidation, body);
      expect(refused.status).toBe(400);
      expect(refused.json.message).toBe(
        `failed to create typed patch object (/undeclared; ${served.apiVersion}, Kind=${served.kind}): errors:\n  .spec.bogus: field not declared in schema\n  .spec.ports[containerPort=80,protocol="TCP"].extra: field not declared in schema`,
      );
    }
    expect((await t.call("GET", `${served.collection}/undeclared`)).status).toBe(404);
  });
});
