/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read arbitrary JSON responses */
import { get as httpGet } from "node:http";
import { get as httpsGet } from "node:https";
import { describe, expect, it } from "vitest";
import { createTestCertificateAuthority } from "../webhook/test-tls.js";
import { configMap, holdAdmission, startTestPlane } from "./test-support.js";

describe("max-in-flight limits (priority and fairness disabled) and request ids", () => {
  it("answers 429 with Retry-After beyond the mutating limit, and serves again once the slot frees", async () => {
    // An admission plugin that holds the first create keeps its seat taken for as long as the test needs.
    const hold = holdAdmission("slow");
    const t = await startTestPlane({ enablePriorityAndFairness: false, maxMutatingRequestsInflight: 1, admission: [hold.plugin] });
    try {
      const slow = t.call("POST", "/api/v1/namespaces/default/configmaps", { body: configMap("slow") });
      await hold.entered;
      const rejected = await t.call("POST", "/api/v1/namespaces/default/configmaps", { body: configMap("second") });
      expect(rejected.status).toBe(429);
      expect(rejected.headers.get("retry-after")).toBe("1");
      expect(rejected.json.reason).toBe("TooManyRequests");
      // Reads have their own budget.
      expect((await t.call("GET", "/api/v1/namespaces/default/configmaps")).status).toBe(200);
      hold.release();
      expect((await slow).status).toBe(201);
      expect((await t.call("POST", "/api/v1/namespaces/default/configmaps", { body: configMap("third") })).status).toBe(201);
    } finally {
      hold.release();
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

describe("request header size", () => {
  /** GET /version with one header of `bytes` bytes, over `url` (a TLS server's CA given as `ca`). */
  function versionWithHeader(url: string, bytes: number, ca?: string): Promise<number> {
    const target = new URL("/version", url);
    const get = target.protocol === "https:" ? httpsGet : httpGet;
    return new Promise((resolve, reject) => {
      const request = get(target, { headers: { "x-padding": "a".repeat(bytes) }, ...(ca === undefined ? {} : { ca }) }, (response) => {
        response.resume();
        response.on("end", () => resolve(response.statusCode ?? 0));
      });
      // The server may answer 431 and close before it has read the whole request.
      request.on("error", reject);
    });
  }

  it("accepts headers up to Go's http.Server limit of 1 MiB (kube-apiserver's MaxHeaderBytes) and answers 431 beyond it", async () => {
    const t = await startTestPlane();
    try {
      expect(await versionWithHeader(t.url, 16 * 1024)).toBe(200);
      expect(await versionWithHeader(t.url, 900 * 1024)).toBe(200);
      expect(await versionWithHeader(t.url, 2 * 1024 * 1024)).toBe(431);
    } finally {
      await t.close();
    }
  });

  it("has the same limit when serving HTTPS", async () => {
    const ca = await createTestCertificateAuthority();
    const t = await startTestPlane({ tls: await ca.issue(["127.0.0.1"]) });
    try {
      expect(await versionWithHeader(t.url, 900 * 1024, ca.pem)).toBe(200);
      expect(await versionWithHeader(t.url, 2 * 1024 * 1024, ca.pem)).toBe(431);
    } finally {
      await t.close();
    }
  });
});
