/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment -- tests read arbitrary JSON responses */
import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { startTestPlane } from "./test-support.js";

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
    const body = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "inflight" }, data: { a: "1" } });
    const status = new Promise<number>((resolve, reject) => {
      const req = request(`${t.url}/api/v1/namespaces/default/configmaps`, { method: "POST", headers: { "Content-Type": "application/json" } }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      });
      req.on("error", reject);
      req.write(body.slice(0, 10));
      // The rest of the body arrives after shutdown began.
      setTimeout(() => req.end(body.slice(10)), 200);
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closed = t.close();
    expect(await status).toBe(201);
    await closed;
  });
});
