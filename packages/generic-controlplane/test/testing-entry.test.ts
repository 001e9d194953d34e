import { createMemoryStorage } from "@kubekit/generic-controlplane/storage";
import { runStorageConformance, startTestPlane } from "@kubekit/generic-controlplane/testing";
import { describe, expect, it } from "vitest";

// What a third-party backend's test file does: run the published conformance suite against it
// (here the memory backend, loaded like any consumer's through the package's entry points).
runStorageConformance("memory backend through @kubekit/generic-controlplane/testing", () => createMemoryStorage({ compactInterval: 0 }));

describe("startTestPlane from @kubekit/generic-controlplane/testing", () => {
  it("serves a control plane on a free loopback port until closed", async () => {
    const test = await startTestPlane();
    try {
      expect(test.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const created = await test.call("POST", "/api/v1/namespaces/default/configmaps", { body: { metadata: { name: "probe" }, data: { a: "1" } } });
      expect(created.status).toBe(201);
      const read = await test.call("GET", "/api/v1/namespaces/default/configmaps/probe");
      expect(read.json).toMatchObject({ kind: "ConfigMap", metadata: { name: "probe" }, data: { a: "1" } });
    } finally {
      await test.close();
    }
    await expect(fetch(`${test.url}/healthz`)).rejects.toThrow();
  });
});
