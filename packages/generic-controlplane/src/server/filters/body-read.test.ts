import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { withBodyRead } from "./body-read.js";
import { withRequestInfo } from "./request-info.js";
import { chainServers } from "./test-support.js";

const startChain = chainServers();

describe("the body-read filter", () => {
  it("has a write's whole body read before the later stages run, and leaves reads alone", async () => {
    const seen: [string, boolean][] = [];
    const server = await startChain([withRequestInfo(), withBodyRead({ maxBytes: 1024 })], (ctx) => {
      seen.push([ctx.method, ctx.req.complete]);
      ctx.res.end();
    });
    await fetch(`${server.url}/api/v1/namespaces/ns/configmaps`, { method: "POST", body: JSON.stringify({ data: { a: "1" } }) });
    // A GET whose body is sent only after the answer came: the answer came without waiting for it.
    const get = await new Promise<number>((resolve, reject) => {
      const req = request(`${server.url}/api/v1/namespaces/ns/configmaps`, { method: "GET", headers: { "content-length": "5" } }, (res) => {
        res.resume();
        req.end("hello");
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      req.flushHeaders();
    });
    expect(get).toBe(200);
    expect(seen).toEqual([
      ["POST", true],
      ["GET", false],
    ]);
  });

  it("answers 413 for a body over the limit before the later stages run", async () => {
    let reached = false;
    const server = await startChain([withRequestInfo(), withBodyRead({ maxBytes: 10 })], (ctx) => {
      reached = true;
      ctx.res.end();
    });
    const response = await fetch(`${server.url}/api/v1/namespaces/ns/configmaps`, { method: "POST", body: "x".repeat(100) });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ kind: "Status", reason: "RequestEntityTooLarge" });
    expect(reached).toBe(false);
  });
});
