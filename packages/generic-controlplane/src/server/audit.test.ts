/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any -- tests read audit events as JSON */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuditLog } from "../audit/log-backend.js";
import { parseAuditPolicy } from "../audit/policy.js";
import { eventually } from "../controllers/test-support.js";
import { configMap, startTestPlane, type TestPlane } from "./test-support.js";

const POLICY = parseAuditPolicy(`
apiVersion: audit.k8s.io/v1
kind: Policy
omitManagedFields: true
rules:
  - level: None
    nonResourceURLs: ["/healthz*", "/readyz*", "/livez*"]
  - level: RequestResponse
    resources: [{ group: "", resources: ["configmaps"] }]
  - level: Request
    resources: [{ group: "", resources: ["secrets"] }]
  - level: Metadata
`);

let dir: string;
let t: TestPlane;
const logPath = () => join(dir, "audit.log");
const events = (): any[] =>
  readFileSync(logPath(), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
const eventsOf = async (auditID: string, count: number): Promise<any[]> =>
  eventually(`${count} audit events of ${auditID}`, () => {
    const found = events().filter((e) => e.auditID === auditID);
    return found.length >= count ? found : undefined;
  });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "kubekit-audit-"));
  t = await startTestPlane({
    audit: { policy: POLICY, backend: createAuditLog({ path: join(dir, "audit.log") }) },
    authenticate: (ctx) =>
      ctx.req.headers["x-test-user"]
        ? { name: String(ctx.req.headers["x-test-user"]), uid: "uid-1", groups: ["devs", "system:authenticated"], extra: { scopes: ["a"] } }
        : undefined,
  });
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("audit log", () => {
  it("writes RequestReceived and ResponseComplete with both bodies at RequestResponse, keyed by the Audit-Id", async () => {
    const created = await t.call("POST", "/api/v1/namespaces/default/configmaps?fieldManager=audit-test", {
      body: configMap("audited"),
      headers: { "x-test-user": "jane", "User-Agent": "audit-test/1.0" },
    });
    expect(created.status).toBe(201);
    const id = created.headers.get("audit-id")!;
    const [received, complete] = await eventsOf(id, 2);
    expect(received).toMatchObject({
      kind: "Event",
      apiVersion: "audit.k8s.io/v1",
      level: "RequestResponse",
      stage: "RequestReceived",
      requestURI: "/api/v1/namespaces/default/configmaps?fieldManager=audit-test",
      verb: "create",
      user: { username: "jane", uid: "uid-1", groups: ["devs", "system:authenticated"], extra: { scopes: ["a"] } },
      sourceIPs: ["127.0.0.1"],
      userAgent: "audit-test/1.0",
      objectRef: { resource: "configmaps", namespace: "default", apiGroup: "", apiVersion: "v1" },
    });
    expect(received.requestObject).toBeUndefined();
    expect(complete).toMatchObject({
      stage: "ResponseComplete",
      responseStatus: { metadata: {}, code: 201 },
      requestObject: { metadata: { name: "audited" } },
      responseObject: { kind: "ConfigMap", metadata: { name: "audited" } },
    });
    // omitManagedFields drops the server's managedFields from the recorded response.
    expect(complete.responseObject.metadata.managedFields).toBeUndefined();
    expect(complete.requestReceivedTimestamp).toBe(received.requestReceivedTimestamp);
    expect(complete.requestReceivedTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });

  it("records a failure's Status at any level, and only the request body at Request", async () => {
    const missing = await t.call("GET", "/api/v1/namespaces/default/secrets/nope");
    const [, complete] = await eventsOf(missing.headers.get("audit-id")!, 2);
    expect(complete).toMatchObject({
      level: "Request",
      verb: "get",
      user: { username: "system:anonymous", groups: ["system:unauthenticated"] },
      objectRef: { name: "nope" },
    });
    expect(complete.responseStatus).toEqual({
      metadata: {},
      status: "Failure",
      message: 'secrets "nope" not found',
      reason: "NotFound",
      details: { name: "nope", kind: "secrets" },
      code: 404,
    });
    const secret = await t.call("POST", "/api/v1/namespaces/default/secrets", {
      body: { metadata: { name: "s" }, stringData: { a: "b" } },
    });
    const [, written] = await eventsOf(secret.headers.get("audit-id")!, 2);
    expect(written.requestObject).toEqual({ metadata: { name: "s" }, stringData: { a: "b" } });
    expect(written.responseObject).toBeUndefined();
  });

  it("records a streamed list of several pages whole at RequestResponse", async () => {
    // Straight to storage (the stored form of one created through the API, renamed): more objects
    // than one page of a streamed list, in a namespace of their own.
    expect((await t.call("POST", "/api/v1/namespaces", { body: { metadata: { name: "audited-list" } } })).status).toBe(201);
    const created = await t.call("POST", "/api/v1/namespaces/audited-list/configmaps", { body: configMap("cm-0000") });
    expect(created.status).toBe(201);
    const stored = JSON.parse((await t.plane.storage.get("/registry/configmaps/audited-list/cm-0000"))!.value);
    const writes: Array<Promise<unknown>> = [];
    for (let i = 1; i < 1200; i++) {
      stored.metadata.name = `cm-${String(i).padStart(4, "0")}`;
      stored.metadata.uid = `uid-${i}`;
      writes.push(t.plane.storage.create(`/registry/configmaps/audited-list/${stored.metadata.name}`, JSON.stringify(stored)));
    }
    await Promise.all(writes);
    const listed = await t.call("GET", "/api/v1/namespaces/audited-list/configmaps");
    expect(listed.headers.get("transfer-encoding")).toBe("chunked");
    const [, complete] = await eventsOf(listed.headers.get("audit-id")!, 2);
    expect(complete.responseObject).toEqual(listed.json);
    expect(complete.responseObject.items).toHaveLength(1200);
  });

  it("adds ResponseStarted for a watch, and writes nothing for requests the policy levels None", async () => {
    const before = events().length;
    expect((await t.call("GET", "/healthz")).status).toBe(200);
    const watch = await fetch(`${t.url}/api/v1/namespaces/default/events?watch=true&timeoutSeconds=1`);
    const id = watch.headers.get("audit-id")!;
    await watch.text();
    const stages = (await eventsOf(id, 3)).map((e) => e.stage);
    expect(stages).toEqual(["RequestReceived", "ResponseStarted", "ResponseComplete"]);
    expect(
      events()
        .slice(before)
        .filter((e) => e.requestURI === "/healthz"),
    ).toEqual([]);
  });
});

describe("audit log rotation", () => {
  it("rotates at maxSizeMB into timestamped backups and keeps maxBackups of them", async () => {
    const rotating = mkdtempSync(join(tmpdir(), "kubekit-audit-rotate-"));
    try {
      const backend = createAuditLog({ path: join(rotating, "audit.log"), maxSizeMB: 0.002, maxBackups: 2 });
      for (let i = 0; i < 40; i++)
        backend.write({ kind: "Event", apiVersion: "audit.k8s.io/v1", auditID: `id-${i}`, padding: "x".repeat(200) });
      await backend.close();
      const files = readdirSync(rotating).sort();
      expect(files).toHaveLength(3);
      expect(files.at(-1)).toBe("audit.log");
      for (const backup of files.slice(0, 2)) expect(backup).toMatch(/^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log$/);
      // Nothing is lost or reordered within what is kept: the live file ends with the last event.
      const live = readFileSync(join(rotating, "audit.log"), "utf8").trim().split("\n");
      expect(JSON.parse(live.at(-1)!).auditID).toBe("id-39");
      for (const file of files) expect(readFileSync(join(rotating, file)).length).toBeLessThanOrEqual(0.002 * 1024 * 1024);
    } finally {
      rmSync(rotating, { recursive: true, force: true });
    }
  });
});
