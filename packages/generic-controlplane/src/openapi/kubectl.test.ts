import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findKubectl132 } from "../../test/harness/tools.js";
import { createDiscoveryDocuments } from "../discovery/discovery.js";
import { negotiateDiscovery } from "../discovery/negotiate.js";
import { applyStrategicMergePatch } from "../patch/strategic-merge-patch.js";
import { buildOpenAPIv3 } from "./v3.js";
import { buildOpenAPIv2 } from "./v2.js";
import { encodeGnosticDocument, OPENAPI_V2_PROTOBUF_CONTENT_TYPE } from "./v2-protobuf.js";
import { configMapsResource, selectBuiltinResources } from "../control-plane/builtin-resources.js";
import { testWidgetsV1, testWidgetsV1beta1 } from "./test-fixtures.js";

const run = promisify(execFile);

/**
 * Serves only what this package builds (discovery and OpenAPI) from a loopback server, so the
 * real kubectl proves the documents are shaped the way client-go needs them.
 */
describe("kubectl 1.32 against the published documents", () => {
  // A missing or wrong kubectl fails in beforeAll (tools.ts says where it looked); never a skip.
  let kubectl = "";
  // The real built-in definitions plus a schema-less custom group with two versions.
  const served = [...selectBuiltinResources(), testWidgetsV1beta1, testWidgetsV1];
  const discovery = createDiscoveryDocuments(served);
  const openapi = buildOpenAPIv3(served);
  const swagger = buildOpenAPIv2(served);
  let swaggerProtobuf = encodeGnosticDocument(swagger);
  const swaggerJson = JSON.stringify(swagger);
  const objectPath = "/api/v1/namespaces/default/configmaps/demo";
  let stored: Record<string, unknown> | undefined;
  const patches: Array<{ contentType: string; body: unknown }> = [];
  let server: Server | undefined;
  let dir = "";
  let aggregated = true;
  /** A fresh kubectl cache directory name, for tests that change documents kubectl would otherwise cache. */
  let cacheName = "cache";
  const v3Overrides = new Map<string, string>();
  const requests: string[] = [];

  function reply(res: ServerResponse, code: number, body: unknown, contentType = "application/json"): void {
    const text = typeof body === "string" ? body : JSON.stringify(body);
    res.writeHead(code, { "Content-Type": contentType });
    res.end(text);
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => route(req, res, Buffer.concat(chunks).toString("utf8")));
  }

  function route(req: IncomingMessage, res: ServerResponse, body: string): void {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    requests.push(`${req.method} ${url.pathname}`);
    const segments = url.pathname.split("/").filter((s) => s !== "");
    const notFound = () =>
      reply(res, 404, {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "the server could not find the requested resource",
        reason: "NotFound",
        code: 404,
      });
    if (segments.length === 1 && (segments[0] === "api" || segments[0] === "apis")) {
      const form = aggregated
        ? negotiateDiscovery(req.headers.accept)
        : { form: "legacy" as const, contentType: "application/json" as const };
      if (form === undefined) return reply(res, 406, {});
      if (form.form === "aggregated") return reply(res, 200, discovery.aggregated(segments[0], form.version), form.contentType);
      return reply(res, 200, segments[0] === "api" ? discovery.legacyVersions() : discovery.groupList());
    }
    if (segments[0] === "api" && segments.length === 2) {
      const list = discovery.resourceList("", segments[1] ?? "");
      return list === undefined ? notFound() : reply(res, 200, list);
    }
    if (segments[0] === "apis" && segments.length === 2) {
      const group = discovery.group(segments[1] ?? "");
      return group === undefined ? notFound() : reply(res, 200, group);
    }
    if (segments[0] === "apis" && segments.length === 3) {
      const list = discovery.resourceList(segments[1] ?? "", segments[2] ?? "");
      return list === undefined ? notFound() : reply(res, 200, list);
    }
    if (url.pathname === objectPath && stored !== undefined) {
      if (req.method === "GET") return reply(res, 200, stored);
      if (req.method === "PATCH") {
        const contentType = req.headers["content-type"] ?? "";
        const patch = JSON.parse(body) as unknown;
        patches.push({ contentType, body: patch });
        if (!contentType.startsWith("application/strategic-merge-patch+json")) return reply(res, 415, {});
        stored = applyStrategicMergePatch(stored, patch, configMapsResource.schema ?? {});
        return reply(res, 200, stored);
      }
    }
    if (url.pathname === "/openapi/v2") {
      if ((req.headers.accept ?? "").includes("protobuf")) {
        res.writeHead(200, { "Content-Type": OPENAPI_V2_PROTOBUF_CONTENT_TYPE });
        res.end(swaggerProtobuf);
        return;
      }
      return reply(res, 200, swaggerJson);
    }
    if (segments[0] === "openapi" && segments[1] === "v3") {
      if (segments.length === 2) return reply(res, 200, openapi.index);
      const override = v3Overrides.get(segments.slice(2).join("/"));
      if (override !== undefined) return reply(res, 200, override);
      const doc = openapi.documents.get(segments.slice(2).join("/"));
      return doc === undefined ? notFound() : reply(res, 200, doc.json);
    }
    return notFound();
  }

  beforeAll(async () => {
    kubectl = findKubectl132();
    dir = mkdtempSync(join(tmpdir(), "kubekit-openapi-"));
    const listening = createServer(handle);
    server = listening;
    await new Promise<void>((resolve) => listening.listen(0, "127.0.0.1", resolve));
    const { port } = listening.address() as AddressInfo;
    writeFileSync(
      join(dir, "kubeconfig"),
      [
        "apiVersion: v1",
        "kind: Config",
        "clusters: [{name: t, cluster: {server: 'http://127.0.0.1:" + String(port) + "'}}]",
        "users: [{name: t, user: {}}]",
        "contexts: [{name: t, context: {cluster: t, user: t, namespace: default}}]",
        "current-context: t",
        "",
      ].join("\n"),
    );
  });

  afterAll(async () => {
    // beforeAll may have failed before the server started (no kubectl).
    const listening = server;
    if (listening) await new Promise<void>((resolve) => listening.close(() => resolve()));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function kubectlRun(...args: string[]): Promise<string> {
    return (await kubectlOutput({}, ...args)).stdout;
  }

  async function kubectlOutput(env: Record<string, string>, ...args: string[]): Promise<{ stdout: string; stderr: string }> {
    return await run(
      kubectl,
      ["--kubeconfig", join(dir, "kubeconfig"), "--cache-dir", join(dir, `${cacheName}-${String(aggregated)}`), ...args],
      {
        env: { PATH: process.env.PATH ?? "", HOME: dir, ...env },
        timeout: 20_000,
      },
    );
  }

  function rows(output: string): string[][] {
    return output
      .trim()
      .split("\n")
      .map((line) => line.trim().split(/\s+/));
  }

  it.each([true, false])("lists resources with api-resources (aggregated discovery: %s)", async (mode) => {
    aggregated = mode;
    requests.length = 0;
    const out = rows(await kubectlRun("api-resources"));
    expect(out[0]).toEqual(["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]);
    expect(out.slice(1)).toEqual([
      ["configmaps", "cm", "v1", "true", "ConfigMap"],
      ["events", "ev", "v1", "true", "Event"],
      ["limitranges", "limits", "v1", "true", "LimitRange"],
      ["namespaces", "ns", "v1", "false", "Namespace"],
      ["resourcequotas", "quota", "v1", "true", "ResourceQuota"],
      ["secrets", "v1", "true", "Secret"],
      ["serviceaccounts", "sa", "v1", "true", "ServiceAccount"],
      ["mutatingwebhookconfigurations", "admissionregistration.k8s.io/v1", "false", "MutatingWebhookConfiguration"],
      ["validatingadmissionpolicies", "admissionregistration.k8s.io/v1", "false", "ValidatingAdmissionPolicy"],
      ["validatingadmissionpolicybindings", "admissionregistration.k8s.io/v1", "false", "ValidatingAdmissionPolicyBinding"],
      ["validatingwebhookconfigurations", "admissionregistration.k8s.io/v1", "false", "ValidatingWebhookConfiguration"],
      ["customresourcedefinitions", "crd,crds", "apiextensions.k8s.io/v1", "false", "CustomResourceDefinition"],
      ["apiservices", "apiregistration.k8s.io/v1", "false", "APIService"],
      ["certificatesigningrequests", "csr", "certificates.k8s.io/v1", "false", "CertificateSigningRequest"],
      ["leases", "coordination.k8s.io/v1", "true", "Lease"],
      ["events", "ev", "events.k8s.io/v1", "true", "Event"],
      ["widgets", "wd", "widgets.example.com/v1", "true", "Widget"],
    ]);
    if (mode) expect(requests).not.toContain("GET /api/v1");
    else expect(requests).toContain("GET /api/v1");
  });

  it("lists group versions with api-versions", async () => {
    aggregated = true;
    expect((await kubectlRun("api-versions")).trim().split("\n")).toEqual([
      "admissionregistration.k8s.io/v1",
      "apiextensions.k8s.io/v1",
      "apiregistration.k8s.io/v1",
      "certificates.k8s.io/v1",
      "coordination.k8s.io/v1",
      "events.k8s.io/v1",
      "v1",
      "widgets.example.com/v1",
      "widgets.example.com/v1beta1",
    ]);
  });

  it("explains configmap.data from the OpenAPI v3 document", async () => {
    aggregated = true;
    const out = await kubectlRun("explain", "configmap.data");
    expect(out).toMatch(/KIND:\s+ConfigMap/);
    expect(out).toMatch(/VERSION:\s+v1/);
    expect(out).toMatch(/FIELD:\s+data <map\[string\]string>/);
    expect(out).toContain("Data contains the configuration data.");
  });

  it("explains metadata fields through the published ObjectMeta schema", async () => {
    const out = await kubectlRun("explain", "configmap.metadata.ownerReferences");
    expect(out).toMatch(/FIELD:\s+ownerReferences <\[\]OwnerReference>/);
    expect(out).toContain("List of objects this object depends on.");
    expect(out).toMatch(/uid\s+<string> -required-/);
  });

  it("explains resources of a named group", async () => {
    const out = await kubectlRun("explain", "leases.spec.holderIdentity");
    expect(out).toMatch(/GROUP:\s+coordination.k8s.io/);
    expect(out).toContain("holderIdentity contains the identity of the holder of a current lease.");
  });

  it("explains a resource that publishes no schema", async () => {
    const out = await kubectlRun("explain", "widgets");
    expect(out).toMatch(/GROUP:\s+widgets.example.com/);
    expect(out).toMatch(/KIND:\s+Widget/);
    expect(out).toMatch(/VERSION:\s+v1/);
  });

  it("explains configmap.data from the protobuf OpenAPI v2 document", async () => {
    const out = await kubectlRun("explain", "configmap.data", "--output", "plaintext-openapiv2");
    expect(out).toMatch(/KIND:\s+ConfigMap/);
    expect(out).toMatch(/FIELD:\s+data <map\[string\]string>/);
    expect(out).toContain("Data contains the configuration data.");
  });

  /** kubectl apply of a changed ConfigMap whose last-applied finalizers were [a, b]; returns the PATCH it sent. */
  async function applyChangedConfigMap(env: Record<string, string>): Promise<{ body: unknown; stdout: string; stderr: string }> {
    const lastApplied = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "demo", namespace: "default", finalizers: ["example.com/a", "example.com/b"] },
      data: { keep: "1", drop: "2" },
    };
    stored = {
      ...lastApplied,
      metadata: {
        ...lastApplied.metadata,
        uid: "0d5ab2f4-7d0e-4d8a-9a8b-1f2e3d4c5b6a",
        resourceVersion: "7",
        creationTimestamp: "2026-01-01T00:00:00Z",
        finalizers: ["example.com/a", "example.com/b", "example.com/server-added"],
        annotations: { "kubectl.kubernetes.io/last-applied-configuration": JSON.stringify(lastApplied) },
      },
    };
    const manifest = join(dir, "demo.yaml");
    writeFileSync(
      manifest,
      [
        "apiVersion: v1",
        "kind: ConfigMap",
        "metadata:",
        "  name: demo",
        "  namespace: default",
        "  finalizers: [example.com/a]",
        "data:",
        "  keep: '1'",
        "  added: '3'",
        "",
      ].join("\n"),
    );
    requests.length = 0;
    patches.length = 0;
    const { stdout, stderr } = await kubectlOutput(env, "apply", "-f", manifest);
    expect(patches).toHaveLength(1);
    expect(patches[0]?.contentType).toContain("application/strategic-merge-patch+json");
    return { body: patches[0]?.body, stdout, stderr };
  }

  it.each([true, false])(
    "computes kubectl apply's strategic merge patch from the published merge keys (OpenAPI v3 patch metadata: %s)",
    async (v3Patch) => {
      const { body, stdout, stderr } = await applyChangedConfigMap({ KUBECTL_OPENAPIV3_PATCH: String(v3Patch) });
      expect(stderr).not.toContain("error calculating patch from openapi");
      expect(stdout.trim()).toBe("configmap/demo configured");
      // kubectl 1.32 reads patch metadata from OpenAPI v3; with that off it falls back to the protobuf v2 document.
      if (v3Patch) expect(requests).toContain("GET /openapi/v3/api/v1");
      else expect(requests).toContain("GET /openapi/v2");
      expect(body).toMatchObject({
        data: { added: "3", drop: null },
        metadata: { "$deleteFromPrimitiveList/finalizers": ["example.com/b"], "$setElementOrder/finalizers": ["example.com/a"] },
      });
      expect(stored).toMatchObject({
        data: { keep: "1", added: "3" },
        metadata: { finalizers: ["example.com/a", "example.com/server-added"] },
      });
      expect((stored as { data: Record<string, string> }).data).not.toHaveProperty("drop");
    },
  );

  it("takes the patch strategy from the protobuf v2 document, not from kubectl's built-in types", async () => {
    // Publish finalizers without a patch strategy: kubectl must then replace the list instead of merging it.
    const altered = structuredClone(swagger);
    const objectMeta = altered.definitions["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"] as {
      properties: Record<string, Record<string, unknown>>;
    };
    delete objectMeta.properties.finalizers?.["x-kubernetes-patch-strategy"];
    const original = swaggerProtobuf;
    swaggerProtobuf = encodeGnosticDocument(altered);
    try {
      const { body } = await applyChangedConfigMap({ KUBECTL_OPENAPIV3_PATCH: "false" });
      expect(body).toMatchObject({ metadata: { finalizers: ["example.com/a"] } });
      expect(JSON.stringify(body)).not.toContain("$deleteFromPrimitiveList");
    } finally {
      swaggerProtobuf = original;
    }
  });

  it("takes the patch strategy from the OpenAPI v3 document, not from kubectl's built-in types", async () => {
    const core = JSON.parse(openapi.documents.get("api/v1")?.json ?? "{}") as {
      components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> };
    };
    delete core.components.schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]?.properties.finalizers?.[
      "x-kubernetes-patch-strategy"
    ];
    v3Overrides.set("api/v1", JSON.stringify(core));
    cacheName = "cache-altered-v3";
    try {
      const { body } = await applyChangedConfigMap({ KUBECTL_OPENAPIV3_PATCH: "true" });
      expect(requests).toContain("GET /openapi/v3/api/v1");
      expect(body).toMatchObject({ metadata: { finalizers: ["example.com/a"] } });
      expect(JSON.stringify(body)).not.toContain("$deleteFromPrimitiveList");
    } finally {
      v3Overrides.clear();
      cacheName = "cache";
    }
  });
});
