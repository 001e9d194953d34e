import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configMapPath, createTestNamespace, expectStatus } from "./harness/framework.js";
import { KubeHttp } from "./harness/http.js";
import { startInProcess, type TestServer } from "./harness/server.js";

// Ports of test/e2e/apimachinery/chunking.go ("Servers with support for API chunking"). Upstream
// lists 400 PodTemplates; this server has no PodTemplates, so the same walk runs over ConfigMaps.

const numberOfTotalResources = 400;

interface Page {
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items: { metadata: { name: string } }[];
}

interface StatusBody {
  code: number;
  reason: string;
  metadata: { continue?: string };
}

const name = (i: number) => `template-${String(i).padStart(4, "0")}`;

describe.each(["memory", "sqlite"] as const)("[sig-api-machinery] Servers with support for API chunking (%s storage)", (backend) => {
  let server: TestServer;
  let http: KubeHttp;
  let ns: string;

  beforeAll(async () => {
    server = await startInProcess({ storage: backend });
    http = new KubeHttp(server.url);
    ns = await createTestNamespace(http, "chunking");
    for (let start = 0; start < numberOfTotalResources; start += 20) {
      await Promise.all(
        Array.from({ length: 20 }, async (_, offset) => {
          expectStatus(await http.post(configMapPath(ns), { metadata: { name: name(start + offset) } }), 201);
        })
      );
    }
  }, 60_000);

  afterAll(async () => {
    await server?.close();
  });

  async function list(query: string): Promise<{ status: number; page: Page; text: string }> {
    const answer = await http.get<Page>(`${configMapPath(ns)}?${query}`);
    return { status: answer.status, page: answer.body, text: answer.text };
  }

  it("should return chunks of results for list calls", async () => {
    let found = 0;
    let lastRV = "";
    let token = "";
    for (;;) {
      const limit = Math.floor(Math.random() * (numberOfTotalResources / 10)) + 1;
      const { status, page, text } = await list(`limit=${limit}${token ? `&continue=${encodeURIComponent(token)}` : ""}`);
      expect(status, text).toBe(200);
      expect(page.items.length).toBeLessThanOrEqual(limit);
      if (!lastRV) lastRV = page.metadata.resourceVersion;
      expect(page.metadata.resourceVersion).toBe(lastRV);
      if (page.metadata.continue) {
        expect(page.metadata.remainingItemCount).toBe(numberOfTotalResources - found - page.items.length);
      } else {
        expect(page.metadata.remainingItemCount).toBeUndefined();
      }
      for (const item of page.items) {
        expect(item.metadata.name).toBe(name(found));
        found++;
      }
      if (!page.metadata.continue) break;
      token = page.metadata.continue;
    }
    expect(found).toBe(numberOfTotalResources);

    const all = await list(`limit=${numberOfTotalResources + 1}`);
    expect(all.page.items).toHaveLength(numberOfTotalResources);
    expect(all.page.metadata.continue ?? "").toBe("");
  });

  it("should support continue listing from the last key if the original version has been compacted away, though the list is inconsistent", async () => {
    const storage = server.storage;
    if (!storage) throw new Error("the in-process server exposes its storage");
    const oneTenth = numberOfTotalResources / 10;
    const first = await list(`limit=${oneTenth}`);
    expect(first.status, first.text).toBe(200);
    const firstToken = first.page.metadata.continue ?? "";
    const firstRV = first.page.metadata.resourceVersion;
    expect(firstToken).not.toBe("");

    // A write after the first page, then compaction past the page's snapshot (upstream waits for etcd's periodic compaction).
    expectStatus(await http.post(configMapPath(ns), { metadata: { name: "zz-written-after-first-page" } }), 201);
    await storage.compact(await storage.currentRevision());

    const expired = await http.get<StatusBody>(`${configMapPath(ns)}?limit=${oneTenth}&continue=${encodeURIComponent(firstToken)}`);
    expect(expired.status, expired.text).toBe(410);
    expect(expired.body.reason).toBe("Expired");
    const inconsistentToken = expired.body.metadata.continue ?? "";
    expect(inconsistentToken).not.toBe("");

    const second = await list(`limit=${oneTenth}&continue=${encodeURIComponent(inconsistentToken)}`);
    expect(second.status, second.text).toBe(200);
    expect(second.page.metadata.resourceVersion).not.toBe(firstRV);
    expect(second.page.items).toHaveLength(oneTenth);
    expect(second.page.items[0]?.metadata.name).toBe(name(oneTenth));
    let found = oneTenth + second.page.items.length;
    const total = numberOfTotalResources + 1;
    if (second.page.metadata.remainingItemCount !== undefined) {
      expect(second.page.metadata.remainingItemCount).toBe(total - found);
    }
    const lastRV = second.page.metadata.resourceVersion;
    let token = second.page.metadata.continue ?? "";
    while (token) {
      const page = await list(`limit=${oneTenth}&continue=${encodeURIComponent(token)}`);
      expect(page.status, page.text).toBe(200);
      expect(page.page.metadata.resourceVersion).toBe(lastRV);
      found += page.page.items.length;
      token = page.page.metadata.continue ?? "";
    }
    expect(found).toBe(total);
  });
});
