import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { withRequestInfo } from "./request-info.js";
import { chainServers, gate } from "./test-support.js";
import { withRequestTimeout } from "./timeout.js";

const startChain = chainServers();

/** A GET that reports how the response ended: its status and body, or that the connection was cut. */
function get(url: string): Promise<{ status: number; headers: Record<string, unknown>; body: string } | "aborted"> {
  return new Promise((resolve) => {
    request(url, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on("error", () => resolve("aborted"));
    })
      .on("error", () => resolve("aborted"))
      .end();
  });
}

describe("the request timeout filter", () => {
  it("answers 504 Timeout and closes the connection when a request outlives its timeout parameter; the late handler's writes go nowhere", async () => {
    const held = gate();
    let finished: () => void = () => undefined;
    const lateWriteDone = new Promise<void>((resolve) => (finished = resolve));
    const server = await startChain([withRequestInfo(), withRequestTimeout(60_000)], async (ctx) => {
      if (ctx.path === "/healthz") return void ctx.res.end("ok");
      await held.opened;
      // The handler goes on after the client got its 504: a write after the end (an 'error' event)
      // and a second writeHead (a throw, which rejects the handler) must not break the server.
      try {
        ctx.res.write("too late");
        ctx.res.writeHead(200).end("too late");
      } finally {
        finished();
      }
    });
    const answer = await get(`${server.url}/api/v1/namespaces/default/configmaps?timeout=200ms`);
    expect(answer).not.toBe("aborted");
    if (answer === "aborted") return;
    expect(answer.status).toBe(504);
    expect(answer.headers["connection"]).toBe("close");
    expect(JSON.parse(answer.body)).toMatchObject({
      kind: "Status",
      status: "Failure",
      reason: "Timeout",
      code: 504,
      message: "Timeout: request did not complete within requested timeout - context deadline exceeded",
    });
    held.open();
    await lateWriteDone;
    expect(await (await fetch(`${server.url}/healthz`)).text()).toBe("ok");
  });

  it("refuses a timeout parameter that is not a Go duration with 400, as upstream", async () => {
    const server = await startChain([withRequestInfo(), withRequestTimeout(60_000)]);
    for (const [value, parseError] of [
      ["invalid", 'time: invalid duration "invalid"'],
      ["5", 'time: missing unit in duration "5"'],
      ["1d", 'time: unknown unit "d" in duration "1d"'],
    ]) {
      const response = await fetch(`${server.url}/api/v1/namespaces/default/configmaps?timeout=${value}`);
      expect(response.status, value).toBe(400);
      expect(await response.json()).toMatchObject({
        kind: "Status",
        reason: "BadRequest",
        message: `invalid timeout specified in the request URL - ${parseError}`,
      });
    }
  });

  it("serves a request within its deadline, and holds a longer timeout parameter to the server's", async () => {
    const server = await startChain([withRequestInfo(), withRequestTimeout(300)], async (ctx) => {
      if (ctx.query.has("slow")) await new Promise<void>(() => undefined);
      ctx.res.end("ok");
    });
    expect(await (await fetch(`${server.url}/api/v1/namespaces/default/configmaps?timeout=1m`)).text()).toBe("ok");
    // A client asking for an hour still gets the server's 300 ms.
    const answer = await get(`${server.url}/api/v1/namespaces/default/configmaps?timeout=1h&slow=1`);
    expect(answer !== "aborted" && answer.status).toBe(504);
  });

  it("cuts off a response already under way at the deadline", async () => {
    const server = await startChain([withRequestInfo(), withRequestTimeout(200)], async (ctx) => {
      ctx.res.writeHead(200, { "Content-Type": "application/json" }).write('{"items":[');
      await new Promise<void>(() => undefined);
    });
    expect(await get(`${server.url}/api/v1/namespaces/default/configmaps`)).toBe("aborted");
  });

  it("never times out a watch: it is long-running and ends by its own timeoutSeconds", async () => {
    const streaming = gate();
    const server = await startChain([withRequestInfo(), withRequestTimeout(100)], async (ctx) => {
      ctx.res.writeHead(200).write("event\n");
      streaming.open();
      await new Promise<void>((resolve) => ctx.res.once("close", resolve));
    });
    const controller = new AbortController();
    const response = await fetch(`${server.url}/api/v1/namespaces/default/configmaps?watch=true`, { signal: controller.signal });
    const reader = response.body!.getReader();
    await streaming.opened;
    // Read past the request timeout several times over: the stream stays open.
    const deadline = Date.now() + 500;
    const first = await reader.read();
    expect(first.done).toBe(false);
    const next = await Promise.race([
      reader.read().then(() => "ended"),
      new Promise((resolve) => setTimeout(() => resolve("open"), deadline - Date.now())),
    ]);
    expect(next).toBe("open");
    controller.abort();
  });
});
