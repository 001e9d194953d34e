import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Kubectl, parseTable } from "./harness/kubectl.js";
import { killAllChildren } from "./harness/run.js";
import { startInProcess, type TestServer } from "./harness/server.js";
import { findKubectl132 } from "./harness/tools.js";

/**
 * CustomResourceDefinitions as kubectl 1.32 drives them: apply a CRD, wait for it, then work with
 * its custom resources through printer columns, explain, server-side apply, edit, categories and
 * scale. Each expectation is what kube-apiserver answers for the same commands.
 */

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    plural: widgets
    singular: widget
    kind: Widget
    shortNames: [wd]
    categories: [all]
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        description: A widget for tests.
        properties:
          spec:
            type: object
            description: The desired state of a widget.
            properties:
              color:
                type: string
                description: Color of the widget, e.g. blue.
              replicas:
                type: integer
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    port: {type: integer}
          status:
            type: object
            properties:
              replicas: {type: integer}
              selector: {type: string}
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
        labelSelectorPath: .status.selector
    additionalPrinterColumns:
    - name: Color
      type: string
      jsonPath: .spec.color
    - name: Replicas
      type: integer
      jsonPath: .spec.replicas
    - name: Age
      type: date
      jsonPath: .metadata.creationTimestamp
`;

interface Widget {
  metadata: { name: string; managedFields?: Array<{ manager: string; operation: string }> };
  spec?: { color?: string; replicas?: number; ports?: Array<{ name: string; port?: number }> };
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

describe("kubectl 1.32 with CustomResourceDefinitions", { timeout: 60_000 }, () => {
  it("applies a CRD and waits for it to be Established", async () => {
    expect(await kubectl.ok(["apply", "-f", "-"], { input: CRD })).toBe(
      "customresourcedefinition.apiextensions.k8s.io/widgets.example.com created\n",
    );
    expect(await kubectl.ok(["wait", "--for=condition=Established", "crd/widgets.example.com", "--timeout=10s"])).toBe(
      "customresourcedefinition.apiextensions.k8s.io/widgets.example.com condition met\n",
    );
    const table = parseTable(await kubectl.ok(["get", "crd"]));
    expect(table.header).toEqual(["NAME", "CREATED AT"]);
    expect(table.rows[0]![0]).toBe("widgets.example.com");
    expect(table.rows[0]![1]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it("creates custom resources and shows their printer columns", async () => {
    const widget = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w1\nspec:\n  color: blue\n  replicas: 2\n";
    expect(await kubectl.ok(["create", "-f", "-"], { input: widget })).toBe("widget.example.com/w1 created\n");
    const table = parseTable(await kubectl.ok(["get", "widgets"]));
    expect(table.header).toEqual(["NAME", "COLOR", "REPLICAS", "AGE"]);
    expect(table.rows[0]!.slice(0, 3)).toEqual(["w1", "blue", "2"]);
    // The short name resolves through discovery.
    expect(parseTable(await kubectl.ok(["get", "wd", "w1"])).rows[0]![0]).toBe("w1");
  });

  it("explains a custom resource field from the CRD's schema", async () => {
    const out = await kubectl.ok(["explain", "widget.spec.color"]);
    expect(out).toContain("GROUP:      example.com");
    expect(out).toContain("KIND:       Widget");
    expect(out).toContain("FIELD: color <string>");
    expect(out).toContain("Color of the widget, e.g. blue.");
  });

  it("applies server-side with a conflict between managers, then forces it", async () => {
    const asA =
      "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: ssa\nspec:\n  color: blue\n  ports:\n  - name: http\n    port: 80\n";
    await kubectl.ok(["apply", "--server-side", "--field-manager=a", "-f", "-"], { input: asA });
    const asB =
      "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: ssa\nspec:\n  color: red\n  ports:\n  - name: https\n    port: 443\n";
    const conflict = await kubectl.run(["apply", "--server-side", "--field-manager=b", "-f", "-"], { input: asB });
    expect(conflict.code).not.toBe(0);
    expect(conflict.stderr).toContain('Apply failed with 1 conflict: conflict with "a": .spec.color');
    await kubectl.ok(["apply", "--server-side", "--field-manager=b", "--force-conflicts", "-f", "-"], { input: asB });
    const widget = await kubectl.json<Widget>(["get", "widget", "ssa", "--show-managed-fields"]);
    expect(widget.spec?.color).toBe("red");
    // ports is a map list keyed by name: each manager owns its own entry, so both stay.
    expect(widget.spec?.ports).toEqual([
      { name: "http", port: 80 },
      { name: "https", port: 443 },
    ]);
  });

  it("edits a custom resource through KUBE_EDITOR", async () => {
    const editor = join(server.dir, "editor.sh");
    writeFileSync(editor, "#!/bin/sh\nsed -i 's/color: blue/color: green/' \"$1\"\n", { mode: 0o755 });
    expect(await kubectl.ok(["edit", "widget", "w1"], { env: { KUBE_EDITOR: editor } })).toBe("widget.example.com/w1 edited\n");
    expect((await kubectl.json<Widget>(["get", "widget", "w1"])).spec?.color).toBe("green");
  });

  it("lists the custom resources under `get all` through their category", async () => {
    // The only type in category `all` here, so kubectl prints its plain table.
    const table = parseTable(await kubectl.ok(["get", "all"]));
    expect(table.header).toEqual(["NAME", "COLOR", "REPLICAS", "AGE"]);
    expect(table.rows.map((row) => row[0])).toEqual(["ssa", "w1"]);
  });

  it("scales a custom resource through its scale subresource", async () => {
    expect(await kubectl.ok(["scale", "widget", "w1", "--replicas=5"])).toBe("widget.example.com/w1 scaled\n");
    expect((await kubectl.json<Widget>(["get", "widget", "w1"])).spec?.replicas).toBe(5);
  });

  it("patches a custom resource with merge patches and refuses strategic merge", async () => {
    await kubectl.ok(["patch", "widget", "w1", "--type=merge", "-p", '{"spec":{"color":"violet"}}']);
    expect((await kubectl.json<Widget>(["get", "widget", "w1"])).spec?.color).toBe("violet");
    const strategic = await kubectl.run(["patch", "widget", "w1", "--type=strategic", "-p", '{"spec":{"color":"black"}}']);
    expect(strategic.code).not.toBe(0);
    expect(strategic.stderr).toBe(
      "error: application/strategic-merge-patch+json is not supported by example.com/v1, Kind=Widget: the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml\n",
    );
  });

  it("says `no matches for kind` for a kind the server does not serve", async () => {
    const pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: [{name: c, image: x}]\n";
    const result = await kubectl.run(["apply", "-f", "-"], { input: pod });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('no matches for kind "Pod" in version "v1"');
    expect(result.stderr).not.toContain("failed to check CRD");
  });

  it("deletes the CRD together with its custom resources", async () => {
    expect(await kubectl.ok(["delete", "crd", "widgets.example.com"])).toBe(
      'customresourcedefinition.apiextensions.k8s.io "widgets.example.com" deleted\n',
    );
    const gone = await kubectl.run(["get", "crd", "widgets.example.com"]);
    expect(gone.stderr).toContain('customresourcedefinitions.apiextensions.k8s.io "widgets.example.com" not found');
  });
});
