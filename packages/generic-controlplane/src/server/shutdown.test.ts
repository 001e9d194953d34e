/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment -- tests read arbitrary JSON responses */
import { once } from "node:events";
import { Agent, request } from "node:http";
import { describe, expect, it } from "vitest";
import { holdAdmission, startTestPlane } from "./test-support.js";

describe("graceful shutdown", () => {
  it("ends open watches cleanly and stops accepting connections", async () => {
    const t = await startTestPlane();
    const rv = (await t.call("GET", "/api/v1/namespaces/default/configmaps")).json.metadata.resourceVersion;
    const response = await fetch(`${t.url}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}`);
    const reader = response.body!.getReader();
    const read = (async () => {
      for (;;) {
        const { done } = await reader.read();
        if (done) return "ended";
      }
    })();
    await t.close();
    expect(await read).toBe("ended");
    await expect(fetch(`${t.url}/healthz`)).rejects.toThrow();
  });

  it("lets an in-flight request finish before closing", async () => {
    const t = await startTestPlane();
    const server = t.plane.server.httpServer;
    const arrived = once(server, "request");
    const body = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "inflight" }, data: { a: "1" } });
    let finishBody = (): void => undefined;
    const status = new Promise<number>((resolve, reject) => {
      const req = request(
        `${t.url}/api/v1/namespaces/default/configmaps`,
        { method: "POST", headers: { "Content-Type": "application/json" } },
        (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        },
      );
      req.on("error", reject);
      req.write(body.slice(0, 10));
      finishBody = () => req.end(body.slice(10));
    });
    await arrived;
    const closed = t.close();
    // The rest of the body arrives after shutdown began: once the listener stopped taking connections.
    while (server.listening) await new Promise((resolve) => setImmediate(resolve));
    finishBody();
    expect(await status).toBe(201);
    await closed;
  });

  it("fails /readyz first and keeps serving during the shutdown delay", async () => {
    const t = await startTestPlane({ shutdownDelayMs: 3000 });
    const closed = t.close();
    const ready = await t.call("GET", "/readyz?verbose");
    expect(ready.status).toBe(500);
    expect(ready.text).toContain("[-]shutdown failed");
    // Load balancers are still sending here while they notice: requests are served normally.
    expect((await t.call("GET", "/api/v1/namespaces/default/configmaps")).status).toBe(200);
    await closed;
  });

  it("answers new requests on kept-alive connections with 429, Retry-After and a Status while in-flight requests drain", async () => {
    const hold = holdAdmission("held");
    const t = await startTestPlane({ admission: [hold.plugin] });
    const agents = [new Agent({ keepAlive: true, maxSockets: 1 }), new Agent({ keepAlive: true, maxSockets: 1 })];
    const get = (agent: Agent, path: string) =>
      new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string; reused: boolean }>(
        (resolve, reject) => {
          const req = request(`${t.url}${path}`, { agent }, (res) => {
            let body = "";
            res.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
            res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, reused: req.reusedSocket }));
          });
          req.on("error", reject);
          req.end();
        },
      );
    try {
      for (const agent of agents) expect((await get(agent, "/api/v1/namespaces/default/configmaps")).status).toBe(200);
      const held = t.call("POST", "/api/v1/namespaces/default/configmaps", {
        body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "held" } },
      });
      await hold.entered;
      const closed = t.close();

      const rejected = await get(agents[0]!, "/api/v1/namespaces/default/configmaps");
      expect(rejected.reused).toBe(true);
      expect(rejected.status).toBe(429);
      expect(rejected.headers["retry-after"]).toBe("5");
      expect(rejected.headers["connection"]).toBe("close");
      expect(JSON.parse(rejected.body)).toMatchObject({
        kind: "Status",
        status: "Failure",
        reason: "TooManyRequests",
        message: "The apiserver is shutting down, please try again later.",
        code: 429,
      });
      // Health probes are not turned away: they see the server is not ready.
      const ready = await get(agents[1]!, "/readyz");
      expect(ready.reused).toBe(true);
      expect(ready.status).toBe(500);

      hold.release();
      expect((await held).status).toBe(201);
      await closed;
    } finally {
      hold.release();
      for (const agent of agents) agent.destroy();
    }
  });
});
