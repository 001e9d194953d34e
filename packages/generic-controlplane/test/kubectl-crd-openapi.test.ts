import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Kubectl } from "./harness/kubectl.js";
import { killAllChildren } from "./harness/run.js";
import { startInProcess, type TestServer } from "./harness/server.js";
import { findKubectl132 } from "./harness/tools.js";

/**
 * Ports of upstream's `[sig-api-machinery] CustomResourcePublishOpenAPI [Privileged:ClusterAdmin]`
 * (`test/e2e/apimachinery/crd_publish_openapi.go`) with kubectl 1.32: CRD schemas published in
 * OpenAPI v2 and v3, `kubectl explain` and kubectl's validation reading them.
 */

const FOO_SCHEMA = `        type: object
        description: Foo CRD for Testing
        properties:
          spec:
            type: object
            description: Specification of Foo
            properties:
              bars:
                type: array
                description: List of Bars and their specs.
                items:
                  type: object
                  required: [name]
                  properties:
                    name:
                      type: string
                      description: Name of Bar.
                    age:
                      type: string
                      description: Age of Bar.
                    bazs:
                      type: array
                      description: List of Bazs.
                      items:
                        type: string
          status:
            type: object
            description: Status of Foo
            properties:
              bars:
                type: array
                description: List of Bars and their statuses.
                items:
                  type: object
                  properties:
                    name:
                      type: string
                      description: Name of Bar.
                    available:
                      type: boolean
                      description: Whether the Bar is installed.
                    quxType:
                      type: string
                      description: Indicates to external qux type.
                      enum: [in-tree, out-of-tree]
`;

function crd(
  group: string,
  plural: string,
  kind: string,
  versions: Array<{ name: string; served?: boolean; storage?: boolean; schema?: string }>,
): string {
  const versionYaml = versions
    .map(
      (v) => `  - name: ${v.name}
    served: ${v.served ?? true}
    storage: ${v.storage ?? false}
    schema:
      openAPIV3Schema:
${v.schema ?? FOO_SCHEMA}`,
    )
    .join("");
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.${group}
spec:
  group: ${group}
  scope: Namespaced
  names: {plural: ${plural}, singular: ${plural.slice(0, -1)}, kind: ${kind}, listKind: ${kind}List}
  versions:
${versionYaml}`;
}

let server: TestServer;
let kubectl: Kubectl;

beforeAll(async () => {
  server = await startInProcess();
  kubectl = new Kubectl(findKubectl132(), server);
}, 60_000);

afterAll(async () => {
  killAllChildren();
  await server?.close();
});

async function applyAndWait(manifest: string, name: string): Promise<void> {
  await kubectl.ok(["apply", "-f", "-"], { input: manifest });
  await kubectl.ok(["wait", "--for=condition=Established", `crd/${name}`, "--timeout=10s"]);
}

/** The OpenAPI v2 definition names of a group's kinds. */
async function v2Definitions(prefix: string): Promise<string[]> {
  const document = (await (await fetch(`${server.url}/openapi/v2`)).json()) as { definitions: Record<string, unknown> };
  return Object.keys(document.definitions)
    .filter((name) => name.startsWith(prefix))
    .sort();
}

/** The OpenAPI v3 group versions published for a group. */
async function v3Paths(group: string): Promise<string[]> {
  const index = (await (await fetch(`${server.url}/openapi/v3`)).json()) as { paths: Record<string, unknown> };
  return Object.keys(index.paths)
    .filter((path) => path.startsWith(`apis/${group}/`))
    .sort();
}

describe("[sig-api-machinery] CustomResourcePublishOpenAPI", { timeout: 60_000 }, () => {
  it("works for CRD with validation schema", async () => {
    await applyAndWait(crd("publish.example.com", "foos", "Foo", [{ name: "v1", storage: true }]), "foos.publish.example.com");
    const valid = "apiVersion: publish.example.com/v1\nkind: Foo\nmetadata:\n  name: test-foo\nspec:\n  bars:\n  - name: test-bar\n";
    expect(await kubectl.ok(["create", "-f", "-"], { input: valid })).toBe("foo.publish.example.com/test-foo created\n");

    // kubectl validates server-side (fieldValidation=Strict): unknown properties and failed rules are refused.
    const unknown = "apiVersion: publish.example.com/v1\nkind: Foo\nmetadata:\n  name: test-foo-unknown\nspec:\n  foo: true\n";
    const refusedUnknown = await kubectl.run(["create", "-f", "-"], { input: unknown });
    expect(refusedUnknown.code).not.toBe(0);
    expect(refusedUnknown.stderr).toContain('unknown field "spec.foo"');
    const missingRequired =
      "apiVersion: publish.example.com/v1\nkind: Foo\nmetadata:\n  name: test-foo-missing\nspec:\n  bars:\n  - age: '10'\n";
    const refusedMissing = await kubectl.run(["create", "-f", "-"], { input: missingRequired });
    expect(refusedMissing.code).not.toBe(0);
    expect(refusedMissing.stderr).toContain("spec.bars[0].name: Required value");

    const explained = await kubectl.ok(["explain", "foos"]);
    expect(explained).toContain("Foo CRD for Testing");
    expect(await kubectl.ok(["explain", "foos.metadata"])).toContain("ObjectMeta");
    const spec = await kubectl.ok(["explain", "foos.spec"]);
    expect(spec).toContain("Specification of Foo");
    expect(spec).toContain("bars\t<[]Object>");
    const bars = await kubectl.ok(["explain", "foos.spec.bars"]);
    expect(bars).toContain("List of Bars and their specs.");
    expect(bars).toContain("name\t<string> -required-");
    const missing = await kubectl.run(["explain", "foos.spec.bars2"]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('field "bars2" does not exist');
  });

  it("works for CRD preserving unknown fields at the schema root", async () => {
    const schema = "        type: object\n        x-kubernetes-preserve-unknown-fields: true\n";
    await applyAndWait(
      crd("preserve.example.com", "waldos", "Waldo", [{ name: "v1", storage: true, schema }]),
      "waldos.preserve.example.com",
    );
    const anything = "apiVersion: preserve.example.com/v1\nkind: Waldo\nmetadata:\n  name: anything\na: {b: [1, 2]}\nspec: 42\n";
    expect(await kubectl.ok(["create", "-f", "-"], { input: anything })).toBe("waldo.preserve.example.com/anything created\n");
    const stored = await kubectl.json<{ a: unknown; spec: unknown }>(["get", "waldo", "anything"]);
    expect(stored.a).toEqual({ b: [1, 2] });
    expect(stored.spec).toBe(42);
    expect(await kubectl.ok(["explain", "waldos"])).toContain("KIND:       Waldo");
  });

  it("works for multiple CRDs of different groups, and of the same group in different versions and kinds", async () => {
    await applyAndWait(crd("multi-a.example.com", "foos", "Foo", [{ name: "v1", storage: true }]), "foos.multi-a.example.com");
    await applyAndWait(crd("multi-b.example.com", "bazs", "Baz", [{ name: "v1", storage: true }]), "bazs.multi-b.example.com");
    await applyAndWait(
      crd("multi-b.example.com", "quxes", "Qux", [{ name: "v1", storage: true }, { name: "v2" }]),
      "quxes.multi-b.example.com",
    );
    expect(await v2Definitions("com.example.multi-a.")).toEqual(["com.example.multi-a.v1.Foo", "com.example.multi-a.v1.FooList"]);
    expect(await v2Definitions("com.example.multi-b.")).toEqual([
      "com.example.multi-b.v1.Baz",
      "com.example.multi-b.v1.BazList",
      "com.example.multi-b.v1.Qux",
      "com.example.multi-b.v1.QuxList",
      "com.example.multi-b.v2.Qux",
      "com.example.multi-b.v2.QuxList",
    ]);
    expect(await kubectl.ok(["explain", "quxes.spec", "--api-version=multi-b.example.com/v2"])).toContain("VERSION:    v2");
  });

  it("updates the published spec when one version gets renamed, and removes a version that stops being served", async () => {
    await applyAndWait(
      crd("renamed.example.com", "foos", "Foo", [{ name: "v2", storage: true }, { name: "v3" }]),
      "foos.renamed.example.com",
    );
    expect(await v3Paths("renamed.example.com")).toEqual(["apis/renamed.example.com/v2", "apis/renamed.example.com/v3"]);

    await kubectl.ok(["apply", "-f", "-"], {
      input: crd("renamed.example.com", "foos", "Foo", [{ name: "v2", storage: true }, { name: "v4" }]),
    });
    await expect
      .poll(() => v2Definitions("com.example.renamed."), { timeout: 5000 })
      .toEqual([
        "com.example.renamed.v2.Foo",
        "com.example.renamed.v2.FooList",
        "com.example.renamed.v4.Foo",
        "com.example.renamed.v4.FooList",
      ]);
    expect(await v3Paths("renamed.example.com")).toEqual(["apis/renamed.example.com/v2", "apis/renamed.example.com/v4"]);

    await kubectl.ok(["apply", "-f", "-"], {
      input: crd("renamed.example.com", "foos", "Foo", [
        { name: "v2", storage: true },
        { name: "v4", served: false },
      ]),
    });
    await expect.poll(() => v3Paths("renamed.example.com"), { timeout: 5000 }).toEqual(["apis/renamed.example.com/v2"]);
    expect(await v2Definitions("com.example.renamed.")).toEqual(["com.example.renamed.v2.Foo", "com.example.renamed.v2.FooList"]);
  });
});
