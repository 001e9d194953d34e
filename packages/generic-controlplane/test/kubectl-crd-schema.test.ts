import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Kubectl } from "./harness/kubectl.js";
import { killAllChildren } from "./harness/run.js";
import { startInProcess, type TestServer } from "./harness/server.js";
import { findKubectl132 } from "./harness/tools.js";

/**
 * What kubectl 1.32 prints when a custom resource breaks its CRD's structural schema, when it
 * sends fields the schema does not know, and how defaults come back: the same output as against
 * kube-apiserver.
 */

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: sprockets.schema.example.com
spec:
  group: schema.example.com
  scope: Namespaced
  names: {plural: sprockets, singular: sprocket, kind: Sprocket}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              teeth: {type: integer, minimum: 3, default: 12}
              finish: {type: string, enum: [matte, gloss]}
`;

let server: TestServer;
let kubectl: Kubectl;

beforeAll(async () => {
  server = await startInProcess();
  kubectl = new Kubectl(findKubectl132(), server);
  await kubectl.ok(["apply", "-f", "-"], { input: CRD });
  await kubectl.ok(["wait", "--for=condition=Established", "crd/sprockets.schema.example.com", "--timeout=10s"]);
}, 60_000);

afterAll(async () => {
  killAllChildren();
  await server?.close();
});

describe("kubectl 1.32 with a CRD's structural schema", { timeout: 60_000 }, () => {
  it("prints the 422 with every cause", async () => {
    const bad = "apiVersion: schema.example.com/v1\nkind: Sprocket\nmetadata:\n  name: bad\nspec:\n  teeth: two\n  finish: shiny\n";
    const result = await kubectl.run(["create", "-f", "-"], { input: bad });
    expect(result.code).not.toBe(0);
    // Causes follow the schema's properties, which kubectl sends with sorted keys (upstream's order is a Go map's).
    expect(result.stderr).toBe(
      `The Sprocket "bad" is invalid: \n` +
        `* spec.finish: Unsupported value: "shiny": supported values: "matte", "gloss"\n` +
        `* spec.teeth: Invalid value: "string": spec.teeth in body must be of type integer: "string"\n`,
    );
  });

  it("refuses unknown fields (kubectl validates strictly by default) and fills defaults", async () => {
    const extra = "apiVersion: schema.example.com/v1\nkind: Sprocket\nmetadata:\n  name: s1\nspec:\n  finish: matte\n  colour: red\n";
    const strict = await kubectl.run(["apply", "-f", "-"], { input: extra });
    expect(strict.code).not.toBe(0);
    expect(strict.stderr).toContain(`unknown field "spec.colour"`);
    await kubectl.ok(["apply", "--validate=false", "-f", "-"], { input: extra });
    const sprocket = await kubectl.json<{ spec: Record<string, unknown> }>(["get", "sprocket", "s1"]);
    expect(sprocket.spec).toEqual({ finish: "matte", teeth: 12 });
  });
});
