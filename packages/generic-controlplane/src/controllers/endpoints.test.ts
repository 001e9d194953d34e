import { Counter, Registry } from "prom-client";
import { afterEach, describe, expect, it } from "vitest";
import { serveControllerEndpoints, type ControllerEndpoints } from "./endpoints.js";

describe("serveControllerEndpoints", () => {
  let endpoints: ControllerEndpoints | undefined;
  afterEach(() => endpoints?.close());

  it("serves the registry at /metrics, the probes, and 404 elsewhere", async () => {
    const registry = new Registry();
    new Counter({ name: "demo_syncs_total", help: "Syncs.", registers: [registry] }).inc(3);
    endpoints = await serveControllerEndpoints({ registry, port: 0, bindAddress: "127.0.0.1" });
    expect(endpoints.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const metrics = await fetch(`${endpoints.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get("content-type")).toBe(registry.contentType);
    expect(await metrics.text()).toContain("demo_syncs_total 3");
    for (const probe of ["/healthz", "/livez", "/readyz"]) {
      const response = await fetch(`${endpoints.url}${probe}`);
      expect([response.status, await response.text()]).toEqual([200, "ok"]);
    }
    const missing = await fetch(`${endpoints.url}/nope`);
    expect([missing.status, await missing.text()]).toEqual([404, "404 page not found\n"]);
  });

  it("brackets an IPv6 address in its url and frees the port on close", async () => {
    endpoints = await serveControllerEndpoints({ registry: new Registry(), port: 0, bindAddress: "::1" });
    expect(endpoints.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
    const { url } = endpoints;
    endpoints.close();
    endpoints = undefined;
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});
