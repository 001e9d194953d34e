import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KubeClient, type ResourceRef } from "./client.js";

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

  async function targetsOf(server: string, send: (client: KubeClient) => Promise<unknown>): Promise<Seen[]> {
    seen = [];
    const client = new KubeClient(server);
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
    const [request] = await targetsOf(`http://user:pa%40ss@${host}`, (client) => client.request("GET", "/version"));
    const headers = request!.rawHeaders;
    expect(headers[headers.indexOf("Authorization") + 1]).toBe(`Basic ${Buffer.from("user:pa@ss").toString("base64")}`);
  });
});
