import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDiscoveryDocuments } from "../discovery/discovery.js";
import { negotiateDiscovery } from "../discovery/negotiate.js";
import { buildOpenAPIv3 } from "./v3.js";
import { testDefinitions } from "./test-fixtures.js";

const run = promisify(execFile);

/** kubectl from PATH, when this machine has it. */
function findKubectl(): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    const candidate = join(dir, "kubectl");
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

const kubectl = findKubectl();

/**
 * Serves only what this package builds (discovery and OpenAPI) from a loopback server, so the
 * real kubectl proves the documents are shaped the way client-go needs them.
 */
describe.runIf(kubectl !== undefined)("kubectl against the published documents", () => {
  const discovery = createDiscoveryDocuments(testDefinitions);
  const openapi = buildOpenAPIv3(testDefinitions);
  let server: Server;
  let dir: string;
  let aggregated = true;
  const requests: string[] = [];

  function reply(res: ServerResponse, code: number, body: unknown, contentType = "application/json"): void {
    const text = typeof body === "string" ? body : JSON.stringify(body);
    res.writeHead(code, { "Content-Type": contentType });
    res.end(text);
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    requests.push(`${req.method} ${url.pathname}`);
    const segments = url.pathname.split("/").filter((s) => s !== "");
    const notFound = () => reply(res, 404, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "the server could not find the requested resource", reason: "NotFound", code: 404 });
    if (segments.length === 1 && (segments[0] === "api" || segments[0] === "apis")) {
      const form = aggregated ? negotiateDiscovery(req.headers.accept) : { form: "legacy" as const, contentType: "application/json" as const };
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
    if (segments[0] === "openapi" && segments[1] === "v3") {
      if (segments.length === 2) return reply(res, 200, openapi.index);
      const doc = openapi.documents.get(segments.slice(2).join("/"));
      return doc === undefined ? notFound() : reply(res, 200, doc.json);
    }
    return notFound();
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kubekit-openapi-"));
    server = createServer(handle);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
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
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  async function kubectlRun(...args: string[]): Promise<string> {
    const { stdout } = await run(kubectl as string, ["--kubeconfig", join(dir, "kubeconfig"), "--cache-dir", join(dir, `cache-${String(aggregated)}`), ...args], {
      env: { PATH: process.env.PATH ?? "", HOME: dir },
      timeout: 20_000,
    });
    return stdout;
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
    expect(out.slice(1)).toEqual(
      expect.arrayContaining([
        ["namespaces", "ns", "v1", "false", "Namespace"],
        ["configmaps", "cm", "v1", "true", "ConfigMap"],
        ["leases", "coordination.k8s.io/v1", "true", "Lease"],
        ["widgets", "wd", "widgets.example.com/v1", "true", "Widget"],
      ]),
    );
    expect(out).toHaveLength(5);
    if (mode) expect(requests).not.toContain("GET /api/v1");
    else expect(requests).toContain("GET /api/v1");
  });

  it("lists group versions with api-versions", async () => {
    aggregated = true;
    expect((await kubectlRun("api-versions")).trim().split("\n")).toEqual(["coordination.k8s.io/v1", "v1", "widgets.example.com/v1", "widgets.example.com/v1beta1"]);
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
});
