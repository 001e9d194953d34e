/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read arbitrary JSON responses */
import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { configMap, startTestPlane } from "./test-support.js";

describe("in-flight limits and request ids", () => {
  it("answers 429 with Retry-After beyond the mutating limit, and serves again once the slot frees", async () => {
    const t = await startTestPlane({ maxMutatingRequestsInflight: 1 });
    try {
      const body = JSON.stringify(configMap("slow"));
      let finishBody = (): void => undefined;
      const slow = new Promise<number>((resolve, reject) => {
        const req = request(`${t.url}/api/v1/namespaces/default/configmaps`, { method: "POST", headers: { "Content-Type": "application/json" } }, (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        });
        req.on("error", reject);
        req.write(body.slice(0, 5));
        finishBody = () => req.end(body.slice(5));
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const rejected = await t.call("POST", "/api/v1/namespaces/default/configmaps", { body: configMap("second") });
      expect(rejected.status).toBe(429);
      expect(rejected.headers.get("retry-after")).toBe("1");
      expect(rejected.json.reason).toBe("TooManyRequests");
      // Reads have their own budget.
      expect((await t.call("GET", "/api/v1/namespaces/default/configmaps")).status).toBe(200);
      finishBody();
      expect(await slow).toBe(201);
      expect((await t.call("POST", "/api/v1/namespaces/default/configmaps", { body: configMap("third") })).status).toBe(201);
    } finally {
      await t.close();
    }
  });

  it("names every response with an Audit-Id", async () => {
    const t = await startTestPlane();
    try {
      const a = await t.call("GET", "/version");
      const b = await t.call("GET", "/api/v1/namespaces/default/configmaps/missing");
      expect(a.headers.get("audit-id")).toMatch(/^[0-9a-f-]{36}$/);
      expect(b.headers.get("audit-id")).toMatch(/^[0-9a-f-]{36}$/);
      expect(a.headers.get("audit-id")).not.toBe(b.headers.get("audit-id"));
    } finally {
      await t.close();
    }
  });
});
