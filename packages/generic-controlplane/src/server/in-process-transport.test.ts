import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { text as readBody } from "node:stream/consumers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Transport } from "@kubekit/client";
import { createAuditLog } from "../audit/log-backend.js";
import { parseAuditPolicy } from "../audit/policy.js";
import { KubeClient, isApiError, type WatchEvent } from "../controllers/client.js";
import { eventually } from "../controllers/test-support.js";
import { inProcessTransport } from "./in-process-transport.js";
import { configMap, holdAdmission, startTestPlane, type TestPlane } from "./test-support.js";

const CONFIGMAPS = { group: "", version: "v1", resource: "configmaps", namespaced: true };
const TOKEN = "transport-token";
const TOKEN_FILE = `${TOKEN},alice,uid-alice,system:masters\n`;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Headers every answer differs in (a new id, the time) or that only a connection has. */
const PER_CONNECTION_OR_REQUEST = new Set(["audit-id", "date", "connection", "keep-alive", "transfer-encoding"]);
const comparable = (answer: Answer) => ({
  status: answer.status,
  body: answer.body,
  headers: Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !PER_CONNECTION_OR_REQUEST.has(name))),
});

function requestHeaders(body: string | undefined, contentType = "application/json"): Record<string, string> {
  return {
    Accept: "application/json",
    Authorization: `Bearer ${TOKEN}`,
    ...(body === undefined ? {} : { "Content-Type": contentType, "Content-Length": String(Buffer.byteLength(body)) }),
  };
}

function overHttp(url: string, method: string, target: string, body?: string, contentType?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${target}`, { method, headers: requestHeaders(body, contentType) }, (res) => {
      readBody(res).then((text) => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }), reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function throughTransport(
  transport: Transport,
  method: string,
  target: string,
  body?: string,
  contentType?: string,
): Promise<Answer> {
  const answer = await transport({
    method,
    target,
    headers: requestHeaders(body, contentType),
    ...(body === undefined ? {} : { body: Buffer.from(body) }),
  });
  return { status: answer.statusCode, headers: answer.headers, body: await readBody(answer.body) };
}

/** Executing requests of the exempt priority level (system:masters), as /metrics reports them. */
async function exemptExecuting(t: TestPlane): Promise<number> {
  const text = (await t.call("GET", "/metrics", { headers: { Authorization: `Bearer ${TOKEN}` } })).text;
  const line = text
    .split("\n")
    .find((l) => l.startsWith("apiserver_flowcontrol_current_executing_requests{") && l.includes('priority_level="exempt"'));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(" ") + 1));
}

describe("inProcessTransport", () => {
  let t: TestPlane;
  let transport: Transport;
  let client: KubeClient;

  beforeAll(async () => {
    t = await startTestPlane({ authentication: { tokenFile: TOKEN_FILE, anonymous: false } });
    transport = inProcessTransport(t.plane.server);
    client = new KubeClient({ server: t.url, token: TOKEN }, { transport });
  });
  afterAll(async () => {
    client.close();
    await t.close();
  });

  it("answers reads with the status, headers and body bytes HTTP does", async () => {
    const created = await overHttp(t.url, "POST", "/api/v1/namespaces/default/configmaps", JSON.stringify(configMap("same")));
    expect(created.status).toBe(201);
    for (let i = 0; i < 150; i++) {
      await overHttp(
        t.url,
        "POST",
        "/api/v1/namespaces/default/configmaps",
        JSON.stringify(configMap(`many-${i}`, { v: "x".repeat(200) })),
      );
    }
    for (const target of [
      "/api/v1/namespaces/default/configmaps/same",
      // A list of about 50 KB: more than a stream buffers before it waits for its reader.
      "/api/v1/namespaces/default/configmaps",
      "/api/v1/namespaces/default/configmaps?limit=2",
      "/api/v1/namespaces/default/configmaps/missing",
      "/api/v1/namespaces/default/configmaps?labelSelector=a%20in%20(",
      "/version",
      "/apis",
    ]) {
      const [http, injected] = [await overHttp(t.url, "GET", target), await throughTransport(transport, "GET", target)];
      expect(comparable(injected), target).toEqual(comparable(http));
    }
  });

  it("answers writes as HTTP does: what a POST, PATCH and PUT return is what a GET over HTTP then reads", async () => {
    const created = await throughTransport(
      transport,
      "POST",
      "/api/v1/namespaces/default/configmaps",
      JSON.stringify(configMap("written")),
    );
    expect(created.status).toBe(201);
    expect(created.headers["content-type"]).toBe("application/json");
    expect(created.body).toBe((await overHttp(t.url, "GET", "/api/v1/namespaces/default/configmaps/written")).body);

    const patched = await throughTransport(
      transport,
      "PATCH",
      "/api/v1/namespaces/default/configmaps/written",
      JSON.stringify({ data: { b: "2" } }),
      "application/merge-patch+json",
    );
    expect(patched.status).toBe(200);
    expect(JSON.parse(patched.body)).toMatchObject({ data: { a: "1", b: "2" } });
    expect(patched.body).toBe((await overHttp(t.url, "GET", "/api/v1/namespaces/default/configmaps/written")).body);

    const conflict = await throughTransport(
      transport,
      "POST",
      "/api/v1/namespaces/default/configmaps",
      JSON.stringify(configMap("written")),
    );
    const conflictOverHttp = await overHttp(t.url, "POST", "/api/v1/namespaces/default/configmaps", JSON.stringify(configMap("written")));
    expect(comparable(conflict)).toEqual(comparable(conflictOverHttp));
    expect(conflict.status).toBe(409);

    await overHttp(t.url, "POST", "/api/v1/namespaces/default/configmaps", JSON.stringify(configMap("twin")));
    const deleted = await throughTransport(transport, "DELETE", "/api/v1/namespaces/default/configmaps/written");
    const deletedOverHttp = await overHttp(t.url, "DELETE", "/api/v1/namespaces/default/configmaps/twin");
    const { uid } = (JSON.parse(deleted.body) as { details: { uid: string } }).details;
    const twinUid = (JSON.parse(deletedOverHttp.body) as { details: { uid: string } }).details.uid;
    const twinBody = deletedOverHttp.body.replace("twin", "written").replace(twinUid, uid);
    const twinHeaders = { ...deletedOverHttp.headers, "content-length": String(Buffer.byteLength(twinBody)) };
    expect(comparable(deleted)).toEqual(comparable({ ...deletedOverHttp, headers: twinHeaders, body: twinBody }));
    expect(JSON.parse(deleted.body)).toMatchObject({ kind: "Status", status: "Success", details: { name: "written", kind: "configmaps" } });
    expect((await overHttp(t.url, "GET", "/api/v1/namespaces/default/configmaps/written")).status).toBe(404);
  });

  it("authenticates the bearer token as HTTP does, and the client's errors carry the server's Status", async () => {
    await expect(client.get(CONFIGMAPS, "default", "missing")).rejects.toMatchObject({
      code: 404,
      reason: "NotFound",
      status: { kind: "Status", code: 404, details: { name: "missing", kind: "configmaps" } },
    });
    const stranger = new KubeClient({ server: t.url, token: "wrong" }, { transport });
    const refused = await stranger.get(CONFIGMAPS, "default", "same").catch((error: unknown) => error);
    expect(isApiError(refused, "Unauthorized")).toBe(true);
    expect(refused).toMatchObject({ code: 401, status: { kind: "Status", code: 401 } });
    const refusedOverHttp = await overHttp(t.url, "GET", "/api/v1/namespaces/default/configmaps/same").then(() =>
      new KubeClient({ server: t.url, token: "wrong" }).get(CONFIGMAPS, "default", "same").catch((error: unknown) => error),
    );
    expect((refused as { status: unknown }).status).toEqual((refusedOverHttp as { status: unknown }).status);
  });

  it("streams a watch's events as they happen; stop() ends it on the server and frees what it held", async () => {
    const list = await client.list(CONFIGMAPS, "default");
    const events: WatchEvent[] = [];
    const watch = await client.watch("/api/v1/namespaces/default/configmaps", { resourceVersion: list.metadata.resourceVersion }, (event) =>
      events.push(event),
    );
    expect(t.plane.server.watchCount).toBe(1);
    await overHttp(t.url, "POST", "/api/v1/namespaces/default/configmaps", JSON.stringify(configMap("watched")));
    await eventually("the ADDED event", () => events.find((e) => e.type === "ADDED" && e.object.metadata?.name === "watched"));
    watch.stop();
    await watch.done;
    await eventually("no watch left on the server", () => (t.plane.server.watchCount === 0 ? true : undefined));
    expect(await exemptExecuting(t)).toBe(0);
  });
});

describe("inProcessTransport and the server's limits", () => {
  it("gives up the seat of a request whose signal aborts, as a closed connection does", async () => {
    const hold = holdAdmission("held");
    const t = await startTestPlane({ enablePriorityAndFairness: false, maxMutatingRequestsInflight: 1, admission: [hold.plugin] });
    const client = new KubeClient(t.url, { transport: inProcessTransport(t.plane.server) });
    try {
      const abort = new AbortController();
      const held = client.create(CONFIGMAPS, "default", configMap("held"), abort.signal).catch((error: unknown) => error);
      await hold.entered;
      // The one mutating seat is taken.
      expect((await t.call("POST", "/api/v1/namespaces/default/configmaps", { body: configMap("refused") })).status).toBe(429);
      abort.abort();
      expect(await held).toMatchObject({ name: "AbortError" });
      expect((await t.call("POST", "/api/v1/namespaces/default/configmaps", { body: configMap("after") })).status).toBe(201);
    } finally {
      hold.release();
      client.close();
      await t.close();
    }
  });

  it("ends a watch through it when the server shuts down", async () => {
    const t = await startTestPlane();
    const client = new KubeClient(t.url, { transport: inProcessTransport(t.plane.server) });
    try {
      const watch = await client.watch("/api/v1/namespaces/default/configmaps", {}, () => undefined);
      expect(t.plane.server.watchCount).toBe(1);
      await t.close();
      await watch.done;
      expect(t.plane.server.watchCount).toBe(0);
    } finally {
      client.close();
      await t.close();
    }
  });
});

describe("in-process controllers", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "kubekit-transport-audit-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reach the server without a connection, audited as the controller manager's loopback user", async () => {
    const path = join(dir, "audit.log");
    const t = await startTestPlane({
      // Requests are authenticated, so the controllers' loopback token names them.
      authentication: { tokenFile: TOKEN_FILE },
      controllers: { controllers: ["garbagecollector"], leaderElection: false },
      audit: {
        policy: parseAuditPolicy("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{ level: Metadata }]\n"),
        backend: createAuditLog({ path }),
      },
    });
    try {
      // The test's own requests go over one kept-alive connection (node:http's global agent, one at a time).
      const owner = JSON.parse(
        (await overHttp(t.url, "POST", "/api/v1/namespaces/default/configmaps", JSON.stringify(configMap("owner")))).body,
      ) as {
        metadata: { uid: string };
      };
      const dependent = configMap("dependent");
      Object.assign(dependent.metadata, {
        ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.metadata.uid }],
      });
      expect((await overHttp(t.url, "POST", "/api/v1/namespaces/default/configmaps", JSON.stringify(dependent))).status).toBe(201);
      expect((await overHttp(t.url, "DELETE", "/api/v1/namespaces/default/configmaps/owner")).status).toBe(200);
      const deletion = await eventually("the collector's audited DELETE of the dependent", () =>
        readFileSync(path, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { verb: string; stage: string; objectRef?: { name?: string }; [key: string]: unknown })
          .find((e) => e.verb === "delete" && e.stage === "ResponseComplete" && e.objectRef?.name === "dependent"),
      );
      expect(deletion).toMatchObject({
        user: { username: "system:apiserver", groups: ["system:masters", "system:authenticated"] },
        userAgent: "kube-controller-manager",
        sourceIPs: ["127.0.0.1"],
        responseStatus: { code: 200 },
      });
      // The controllers (informers, watches, the collector's requests) hold no connection of their own.
      expect(await new Promise<number>((resolve) => t.plane.server.httpServer.getConnections((_, n) => resolve(n)))).toBe(1);
    } finally {
      await t.close();
    }
  });
});
