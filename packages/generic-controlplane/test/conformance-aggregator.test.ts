/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any -- tests read arbitrary JSON responses */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import type { IncomingHttpHeaders } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createControlPlane, type ControlPlane } from "../src/control-plane.js";
import type { ResourceDefinition } from "../src/registry/rest/resource-definition.js";
import { startTestPlane, type TestPlane } from "../src/server/test-support.js";
import { staticServiceResolver } from "../src/webhook/client-config.js";
import {
  createTestCertificateAuthority,
  startTestHttpsServer,
  type TestCertificateAuthority,
  type TestHttpsServer,
} from "../src/webhook/test-tls.js";
import { Kubectl, parseTable } from "./harness/kubectl.js";
import { killAllChildren } from "./harness/run.js";
import { findKubectl120, findKubectl132 } from "./harness/tools.js";

/**
 * The Aggregator e2e ("Should be able to support the 1.17 Sample API Server using the current
 * Aggregator"): a second control plane serving wardle.example.com/v1alpha1 flunders over TLS as
 * the extension server, registered by an APIService, used through the aggregating server.
 */

const flunders: ResourceDefinition = {
  group: "wardle.example.com",
  version: "v1alpha1",
  kind: "Flunder",
  plural: "flunders",
  singular: "flunder",
  scope: "Namespaced",
  schema: {
    type: "object",
    "x-kubernetes-group-version-kind": [{ group: "wardle.example.com", version: "v1alpha1", kind: "Flunder" }],
    properties: {
      apiVersion: { type: "string" },
      kind: { type: "string" },
      metadata: { type: "object" },
      spec: {
        type: "object",
        description: "What the flunder refers to.",
        properties: { reference: { type: "string", description: "A reference to another flunder." } },
      },
    },
  },
};

const APISERVICES = "/apis/apiregistration.k8s.io/v1/apiservices";
const FLUNDERS = "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders";

let ca: TestCertificateAuthority;
let extension: ControlPlane;
let front: TestHttpsServer;
let main: TestPlane;
/** What the extension server received, health checks included. */
const seen: Array<{ method: string; url: string; headers: IncomingHttpHeaders }> = [];
const requestsTo = (method: string, prefix: string) =>
  seen.filter((r) => r.method === method && r.url.startsWith(prefix)).map((r) => r.headers);
const cleanups: Array<() => void> = [];

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    last = await probe();
    if (last !== undefined) return last as T;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function availableCondition(name: string) {
  const got = await main.call("GET", `${APISERVICES}/${name}`);
  return (got.json?.status?.conditions ?? []).find((c: { type: string }) => c.type === "Available") as
    { status: string; reason: string; message: string } | undefined;
}

const waitForCondition = (name: string, status: string, reason: string) =>
  waitFor(`APIService ${name} Available=${status} (${reason})`, async () => {
    const condition = await availableCondition(name);
    return condition?.status === status && condition.reason === reason ? condition : undefined;
  });

beforeAll(async () => {
  ca = await createTestCertificateAuthority("wardle-ca");
  extension = await createControlPlane({
    resources: [flunders],
    namespaceLifecycle: false,
    enablePriorityAndFairness: false,
    processMetrics: false,
  });
  front = await startTestHttpsServer(await ca.issue(["api.wardle.svc"]), (req, res) => {
    seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers });
    void extension.server.handle(req, res);
  });
  main = await startTestPlane({
    aggregator: { serviceResolver: staticServiceResolver({ "wardle/api:443": front.url }), availabilityIntervalMs: 300 },
    authenticate: (ctx) =>
      ctx.req.headers.authorization === "Bearer alice" ? { name: "alice", groups: ["wardle-admins", "system:authenticated"] } : undefined,
  });
}, 60_000);

afterAll(async () => {
  killAllChildren();
  for (const cleanup of cleanups) cleanup();
  await main?.close();
  await front?.close();
  await extension?.close();
});

describe("Aggregator", { timeout: 30_000 }, () => {
  it("registers a Local, Available APIService for every group version served here", async () => {
    const list = await main.call("GET", APISERVICES);
    const names = (list.json.items as Array<{ metadata: { name: string } }>).map((i) => i.metadata.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "v1.",
        "v1.coordination.k8s.io",
        "v1.admissionregistration.k8s.io",
        "v1.apiregistration.k8s.io",
        "v1.events.k8s.io",
      ]),
    );
    const core = await main.call("GET", `${APISERVICES}/v1.`);
    expect(core.json.spec).toEqual({ version: "v1", groupPriorityMinimum: 18000, versionPriority: 1 });
    expect(core.json.status.conditions).toMatchObject([
      { type: "Available", status: "True", reason: "Local", message: "Local APIServices are always available" },
    ]);
  });

  it("serves an extension server's group version through the aggregator", async () => {
    const created = await main.call("POST", APISERVICES, {
      body: {
        apiVersion: "apiregistration.k8s.io/v1",
        kind: "APIService",
        metadata: { name: "v1alpha1.wardle.example.com" },
        spec: {
          group: "wardle.example.com",
          version: "v1alpha1",
          service: { namespace: "wardle", name: "api" },
          caBundle: ca.caBundle,
          groupPriorityMinimum: 2000,
          versionPriority: 200,
        },
      },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json.spec.service.port).toBe(443);
    const condition = await waitForCondition("v1alpha1.wardle.example.com", "True", "Passed");
    expect(condition.message).toBe("all checks passed");

    // Discovery: the legacy group list, the APIGroup and aggregated discovery all show it.
    const groups = await main.call("GET", "/apis");
    expect(groups.json.groups).toContainEqual({
      name: "wardle.example.com",
      versions: [{ groupVersion: "wardle.example.com/v1alpha1", version: "v1alpha1" }],
      preferredVersion: { groupVersion: "wardle.example.com/v1alpha1", version: "v1alpha1" },
    });
    expect((await main.call("GET", "/apis/wardle.example.com")).json).toMatchObject({ kind: "APIGroup", name: "wardle.example.com" });
    const resourceList = await main.call("GET", "/apis/wardle.example.com/v1alpha1");
    expect(resourceList.json.resources.map((r: { name: string }) => r.name)).toEqual(["flunders"]);
    const aggregated = await main.call("GET", "/apis", {
      headers: { Accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" },
    });
    expect(aggregated.json.items).toContainEqual({
      metadata: { name: "wardle.example.com", creationTimestamp: null },
      versions: [
        {
          version: "v1alpha1",
          freshness: "Current",
          resources: [
            expect.objectContaining({
              resource: "flunders",
              responseKind: { group: "wardle.example.com", version: "v1alpha1", kind: "Flunder" },
              scope: "Namespaced",
              singularResource: "flunder",
            }),
          ],
        },
      ],
    });
    // OpenAPI v3: the index lists the extension's document, which is served here.
    const index = await main.call("GET", "/openapi/v3");
    const entry = index.json.paths["apis/wardle.example.com/v1alpha1"];
    expect(entry.serverRelativeURL).toMatch(/^\/openapi\/v3\/apis\/wardle\.example\.com\/v1alpha1\?hash=[0-9A-F]+$/);
    const doc = await main.call("GET", entry.serverRelativeURL);
    expect(Object.keys(doc.json.components.schemas)).toContain("com.example.wardle.v1alpha1.Flunder");

    // Writes, reads and lists reach the extension server; the user is named in X-Remote-* headers.
    const flunder = await main.call("POST", FLUNDERS, {
      body: { apiVersion: "wardle.example.com/v1alpha1", kind: "Flunder", metadata: { name: "one" }, spec: { reference: "two" } },
      headers: { Authorization: "Bearer alice" },
    });
    expect(flunder.status, flunder.text).toBe(201);
    expect((await extension.store("wardle.example.com", "flunders")!.get("default", "one")).spec).toEqual({ reference: "two" });
    const [post] = requestsTo("POST", FLUNDERS);
    expect(post).toMatchObject({ "x-remote-user": "alice", "x-remote-group": "wardle-admins, system:authenticated" });
    expect(post?.authorization).toBeUndefined();
    expect((await main.call("GET", `${FLUNDERS}/one`)).json.spec).toEqual({ reference: "two" });
    expect(requestsTo("GET", `${FLUNDERS}/one`)[0]).toMatchObject({
      "x-remote-user": "system:anonymous",
      "x-remote-group": "system:unauthenticated",
    });
    // Health checks come as the aggregator itself.
    expect(requestsTo("GET", "/apis/wardle.example.com/v1alpha1")[0]).toMatchObject({
      "x-remote-user": "system:kube-aggregator",
      "x-remote-group": "system:masters",
    });
    expect((await main.call("GET", FLUNDERS)).json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(["one"]);
  });

  it("streams a watch from the extension server", async () => {
    const list = await main.call("GET", FLUNDERS);
    const controller = new AbortController();
    const response = await fetch(`${main.url}${FLUNDERS}?watch=true&resourceVersion=${list.json.metadata.resourceVersion}`, {
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    expect((await main.call("POST", FLUNDERS, { body: { metadata: { name: "watched" } } })).status).toBe(201);
    let text = "";
    while (!text.includes("\n")) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += new TextDecoder().decode(chunk.value);
    }
    const event = JSON.parse(text.split("\n")[0]!);
    expect(event).toMatchObject({ type: "ADDED", object: { kind: "Flunder", metadata: { name: "watched" } } });
    controller.abort();
  });

  it("lets kubectl list, create and get the extension server's resources", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kubekit-aggregator-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const kubeconfigPath = join(dir, "kubeconfig");
    await main.plane.writeKubeconfig(kubeconfigPath);
    const kubectl = new Kubectl(findKubectl132(), { url: main.url, kubeconfigPath, dir, close: () => Promise.resolve() });
    const resources = await kubectl.ok(["api-resources", "--api-group=wardle.example.com"]);
    expect(parseTable(resources).rows).toEqual([["flunders", "wardle.example.com/v1alpha1", "true", "Flunder"]]);
    const manifest = join(dir, "flunder.yaml");
    writeFileSync(
      manifest,
      "apiVersion: wardle.example.com/v1alpha1\nkind: Flunder\nmetadata:\n  name: from-kubectl\nspec:\n  reference: one\n",
    );
    expect(await kubectl.ok(["create", "-f", manifest])).toBe("flunder.wardle.example.com/from-kubectl created\n");
    const table = parseTable(await kubectl.ok(["get", "flunders"]));
    expect(table.rows.map((r) => r[0])).toEqual(["from-kubectl", "one", "watched"]);
    const apiservices = parseTable(await kubectl.ok(["get", "apiservices", "v1alpha1.wardle.example.com"]));
    expect(apiservices.header).toEqual(["NAME", "SERVICE", "AVAILABLE", "AGE"]);
    expect(apiservices.rows[0]?.slice(0, 3)).toEqual(["v1alpha1.wardle.example.com", "wardle/api", "True"]);
  }, 60_000);

  it("merges the extension server's /openapi/v2 into its own, which kubectl 1.20's explain reads", async () => {
    const swagger = await main.call("GET", "/openapi/v2");
    expect(swagger.status).toBe(200);
    expect(Object.keys(swagger.json.paths)).toEqual(
      expect.arrayContaining([
        "/api/v1/namespaces/{namespace}/configmaps",
        "/apis/wardle.example.com/v1alpha1/namespaces/{namespace}/flunders/{name}",
      ]),
    );
    const definitions = Object.keys(swagger.json.definitions);
    expect(definitions).toEqual(expect.arrayContaining(["io.k8s.api.core.v1.ConfigMap", "com.example.wardle.v1alpha1.Flunder"]));
    expect(swagger.json.definitions["com.example.wardle.v1alpha1.Flunder"].properties.spec.description).toBe("What the flunder refers to.");
    // Definitions both servers publish alike (ObjectMeta, ...) are there once; those that differ
    // (DeleteOptions and WatchEvent list each server's group versions) are the extension's as `_v2`.
    expect(definitions).toContain("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
    expect(definitions.filter((name) => /_v\d+$/.test(name)).sort()).toEqual([
      "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions_v2",
      "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent_v2",
    ]);
    const bodyOf = (path: string) =>
      (swagger.json.paths[path].delete.parameters as Array<{ in: string; schema?: { $ref: string } }>).find((p) => p.in === "body")?.schema
        ?.$ref;
    expect(bodyOf("/apis/wardle.example.com/v1alpha1/namespaces/{namespace}/flunders/{name}")).toBe(
      "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions_v2",
    );
    expect(bodyOf("/api/v1/namespaces/{namespace}/configmaps/{name}")).toBe(
      "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
    );

    const dir = mkdtempSync(join(tmpdir(), "kubekit-aggregator-v2-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const kubeconfigPath = join(dir, "kubeconfig");
    await main.plane.writeKubeconfig(kubeconfigPath);
    // kubectl 1.20 explains from the protobuf /openapi/v2.
    const kubectl = new Kubectl(findKubectl120(), { url: main.url, kubeconfigPath, dir, close: () => Promise.resolve() });
    const explained = await kubectl.ok(["explain", "flunders.spec"]);
    expect(explained).toContain("KIND:     Flunder\nVERSION:  wardle.example.com/v1alpha1");
    expect(explained).toContain("DESCRIPTION:\n     What the flunder refers to.");
    expect(explained).toMatch(/reference\t<string>\n\s+A reference to another flunder\./);
  }, 60_000);

  it("reports ServiceNotFound and FailedDiscoveryCheck, and answers 503 while unavailable", async () => {
    const missing = await main.call("POST", APISERVICES, {
      body: {
        metadata: { name: "v1.missing.example.com" },
        spec: {
          group: "missing.example.com",
          version: "v1",
          service: { namespace: "wardle", name: "missing" },
          groupPriorityMinimum: 100,
          versionPriority: 10,
        },
      },
    });
    expect(missing.status).toBe(201);
    const notFound = await waitForCondition("v1.missing.example.com", "False", "ServiceNotFound");
    expect(notFound.message).toBe('service/missing in "wardle" is not present');
    const unavailable = await main.call("GET", "/apis/missing.example.com/v1/things");
    expect(unavailable.status).toBe(503);
    expect(unavailable.text).toBe("service unavailable\n");

    const wrongCa = await createTestCertificateAuthority("other");
    await main.call("POST", APISERVICES, {
      body: {
        metadata: { name: "v1.untrusted.example.com" },
        spec: {
          group: "untrusted.example.com",
          version: "v1",
          service: { namespace: "wardle", name: "api" },
          caBundle: wrongCa.caBundle,
          groupPriorityMinimum: 100,
          versionPriority: 10,
        },
      },
    });
    const untrusted = await waitForCondition("v1.untrusted.example.com", "False", "FailedDiscoveryCheck");
    expect(untrusted.message).toBe(
      `failing or missing response from ${front.url}/apis/untrusted.example.com/v1: Get "${front.url}/apis/untrusted.example.com/v1": tls: failed to verify certificate: x509: certificate signed by unknown authority`,
    );
    // Unavailable group versions are not advertised.
    expect((await main.call("GET", "/apis")).json.groups.map((g: { name: string }) => g.name)).not.toContain("untrusted.example.com");
  });

  it("validates APIServices as upstream does", async () => {
    const invalid = await main.call("POST", APISERVICES, {
      body: {
        metadata: { name: "wrong-name" },
        spec: { group: "x.example.com", version: "V1", groupPriorityMinimum: 0, versionPriority: 2000, caBundle: ca.caBundle },
      },
    });
    expect(invalid.status).toBe(422);
    const causes = (invalid.json.details.causes as Array<{ field: string; message: string }>).map((c) => `${c.field}: ${c.message}`);
    expect(causes).toEqual([
      'metadata.name: Invalid value: "wrong-name": must be `spec.version+"."+spec.group`',
      "spec.version: Invalid value: \"V1\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      "spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000",
      "spec.versionPriority: Invalid value: 2000: must be positive and less than 1000",
      `spec.caBundle: Invalid value: "${Buffer.from(ca.caBundle, "base64").length} bytes": local APIServices may not have a caBundle`,
    ]);
  });
});

describe("Aggregator after the extension server stops", { timeout: 30_000 }, () => {
  it("marks the APIService FailedDiscoveryCheck and answers 503", async () => {
    await front.close();
    const failed = await waitForCondition("v1alpha1.wardle.example.com", "False", "FailedDiscoveryCheck");
    expect(failed.message).toMatch(
      new RegExp(
        `^failing or missing response from ${front.url.replace(/\./g, "\\.")}/apis/wardle\\.example\\.com/v1alpha1: Get "${front.url.replace(/\./g, "\\.")}/apis/wardle\\.example\\.com/v1alpha1": dial tcp 127\\.0\\.0\\.1:${front.port}: connect: connection refused$`,
      ),
    );
    const refused = await main.call("GET", FLUNDERS);
    expect(refused.status).toBe(503);
    expect((await main.call("GET", "/apis")).json.groups.map((g: { name: string }) => g.name)).not.toContain("wardle.example.com");
    // The extension's data is untouched by all this.
    expect((await extension.store("wardle.example.com", "flunders")!.list("default")).items).toHaveLength(3);
  });
});
