import { describe, expect, it } from "vitest";
import { withRetryAfter } from "./retry-after.js";
import { chainServers } from "./test-support.js";

const startChain = chainServers();

describe("the retry-after filter", () => {
  it("sends new requests elsewhere once the server stops accepting them, but still answers probes and metrics", async () => {
    let draining = false;
    const server = await startChain([withRetryAfter(() => draining)]);
    expect((await fetch(`${server.url}/api/v1/configmaps`)).status).toBe(200);
    draining = true;
    const refused = await fetch(`${server.url}/api/v1/configmaps`);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("5");
    expect(refused.headers.get("connection")).toBe("close");
    expect(await refused.json()).toMatchObject({
      kind: "Status",
      reason: "TooManyRequests",
      message: "The apiserver is shutting down, please try again later.",
    });
    for (const path of ["/readyz", "/livez?verbose", "/healthz/ping", "/metrics"]) {
      expect((await fetch(`${server.url}${path}`)).status, path).toBe(200);
    }
    expect((await fetch(`${server.url}/readyzz`)).status).toBe(429);
  });
});
