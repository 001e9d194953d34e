import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import { PassThrough } from "node:stream";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KubeClient, isApiError, type ResourceRef } from "./client.js";
import type { Transport, TransportRequest } from "./transport.js";

const configMaps: ResourceRef = { group: "", version: "v1", resource: "configmaps", namespaced: true };

interface Seen {
  method: string;
  url: string;
  rawHeaders: string[];
}

describe("KubeClient request targets and headers", () => {
  let server: Server;
  let seen: Seen[] = [];
  let origin = "";
  let host = "";

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", rawHeaders: req.rawHeaders });
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end('{"kind":"Status","apiVersion":"v1","status":"Success"}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    origin = `http://${host}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  async function targetsOf(server: string, send: (client: KubeClient) => Promise<unknown>, transport?: Transport): Promise<Seen[]> {
    seen = [];
    const client = new KubeClient(server, transport === undefined ? {} : { transport });
    try {
      await send(client);
    } finally {
      client.close();
    }
    return seen;
  }

  it("sends each path under the server URL's path, with the query encoded as a URL encodes it", async () => {
    const urls = (
      await targetsOf(`${origin}/prefix/`, async (client) => {
        await client.get(configMaps, "ns", "plain");
        await client.get(configMaps, "ns", "a b/ü");
        await client.list(configMaps, "ns", { labelSelector: "app in (a, b)", limit: 5, continue: undefined });
        await client.request("GET", "/api/v1/pods?x=1&y=2", { query: { y: 3 } });
        await client.request("GET", "/a/./b/../c/%2E%2e/d");
        await client.request("GET", "/a b/{c}");
        await client.request("GET", "/");
        await client.request("GET", "/api/v1/x//y");
      })
    ).map((s) => s.url);
    expect(urls).toEqual([
      "/prefix/api/v1/namespaces/ns/configmaps/plain",
      "/prefix/api/v1/namespaces/ns/configmaps/a%20b%2F%C3%BC",
      "/prefix/api/v1/namespaces/ns/configmaps?labelSelector=app+in+%28a%2C+b%29&limit=5",
      "/prefix/api/v1/pods?x=1&y=3",
      "/prefix/a/d",
      "/prefix/a%20b/%7Bc%7D",
      "/prefix/",
      "/prefix/api/v1/x//y",
    ]);
  });

  it("sends the same request line and headers, in the same order, as Node does for the server URL", async () => {
    const [deleted, listed] = await targetsOf(origin, async (client) => {
      await client.delete(configMaps, "ns", "gone", { propagationPolicy: "Background" });
      await client.request("GET", "/api", { query: {} });
    });
    const body = JSON.stringify({ apiVersion: "v1", kind: "DeleteOptions", propagationPolicy: "Background" });
    expect(deleted).toEqual({
      method: "DELETE",
      url: "/api/v1/namespaces/ns/configmaps/gone",
      rawHeaders: [
        "Accept",
        "application/json",
        "Content-Type",
        "application/json",
        "Content-Length",
        String(Buffer.byteLength(body)),
        "Host",
        host,
        "Connection",
        "keep-alive",
      ],
    });
    expect(listed).toEqual({
      method: "GET",
      url: "/api",
      rawHeaders: ["Accept", "application/json", "Host", host, "Connection", "keep-alive"],
    });
  });

  it("sends the server URL's user information as basic credentials", async () => {
    for (const transport of [undefined, relay]) {
      const [request] = await targetsOf(`http://user:pa%40ss@${host}`, (client) => client.request("GET", "/version"), transport);
      const headers = request!.rawHeaders;
      expect(headers[headers.indexOf("Authorization") + 1]).toBe(`Basic ${Buffer.from("user:pa@ss").toString("base64")}`);
    }
  });

  /** A transport that sends each request it is handed as it is, over node:http to the test server. */
  let relayedCount = 0;
  const relay: Transport = (request) =>
    new Promise((resolve, reject) => {
      relayedCount++;
      const req = httpRequest(
        { host: "127.0.0.1", port: Number(host.split(":")[1]), method: request.method, path: request.target, headers: request.headers },
        (res) => resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: res }),
      );
      req.on("error", reject);
      req.end(request.body);
    });

  it("hands a transport the request line, headers and body node:http would send", async () => {
    const sendAll = async (client: KubeClient): Promise<void> => {
      await client.get(configMaps, "ns", "a b/ü");
      await client.list(configMaps, "ns", { labelSelector: "app in (a, b)", limit: 5 });
      await client.request("GET", "/a/./b/../c/%2E%2e/d");
      await client.delete(configMaps, "ns", "gone", { propagationPolicy: "Background" });
      await client.patch(configMaps, "ns", "x", { data: { a: "1" } });
    };
    const direct = await targetsOf(`${origin}/prefix`, sendAll);
    relayedCount = 0;
    const relayed = await targetsOf(`${origin}/prefix`, sendAll, relay);
    expect(relayedCount).toBe(5);
    expect(relayed).toEqual(direct);
    expect(relayed.map((s) => s.url)).toContain("/prefix/api/v1/namespaces/ns/configmaps/a%20b%2F%C3%BC");
  });
});

describe("KubeClient with a transport", () => {
  const status = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    reason: "NotFound",
    message: 'configmaps "x" not found',
    code: 404,
  };

  it("reads answers and errors from it as from HTTP, and a watch's stop() destroys its body", async () => {
    const handed: TransportRequest[] = [];
    const watchBody = new PassThrough();
    const transport: Transport = (request) => {
      handed.push(request);
      if (request.target.includes("watch=true")) return Promise.resolve({ statusCode: 200, headers: {}, body: watchBody });
      const missing = request.target.endsWith("/missing");
      const body = new PassThrough();
      body.end(JSON.stringify(missing ? status : { kind: "ConfigMap", metadata: { name: "x" } }));
      return Promise.resolve({ statusCode: missing ? 404 : 200, headers: { "content-type": "application/json" }, body });
    };
    const client = new KubeClient({ server: "https://10.0.0.1:6443", token: "t0ken", userAgent: "tests" }, { transport });
    expect(await client.get(configMaps, "ns", "x")).toEqual({ kind: "ConfigMap", metadata: { name: "x" } });
    const error = await client.get(configMaps, "ns", "missing").catch((e: unknown) => e);
    expect(isApiError(error, "NotFound")).toBe(true);
    expect(error).toMatchObject({ code: 404, status });
    expect(handed[0]).toEqual({
      method: "GET",
      target: "/api/v1/namespaces/ns/configmaps/x",
      headers: { Accept: "application/json", "User-Agent": "tests", Authorization: "Bearer t0ken", Host: "10.0.0.1:6443" },
    });

    const events: unknown[] = [];
    const watch = await client.watch("/api/v1/configmaps", { resourceVersion: "5" }, (event) => events.push(event));
    expect(handed[2]!.target).toBe("/api/v1/configmaps?resourceVersion=5&watch=true");
    watchBody.write('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n{"type":"DEL');
    watchBody.write('ETED","object":{"metadata":{"name":"a"}}}\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual([
      { type: "ADDED", object: { metadata: { name: "a" } } },
      { type: "DELETED", object: { metadata: { name: "a" } } },
    ]);
    watch.stop();
    await watch.done;
    expect(watchBody.destroyed).toBe(true);
  });

  it("hands it the caller's signal and rejects as it does", async () => {
    let handed: AbortSignal | undefined;
    const transport: Transport = (request) =>
      new Promise((_, reject) => {
        handed = request.signal;
        request.signal?.addEventListener("abort", () => reject(Object.assign(new Error("aborted"), { name: "AbortError" })));
      });
    const client = new KubeClient("http://127.0.0.1:1", { transport });
    const abort = new AbortController();
    const pending = client.get(configMaps, "ns", "x", abort.signal);
    abort.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    expect(handed).toBe(abort.signal);
  });
});
