import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configMapPath, createTestNamespace, expectStatus } from "./harness/framework.js";
import { KubeHttp } from "./harness/http.js";
import { startInProcess, type TestServer } from "./harness/server.js";

// Ports of test/e2e/apimachinery/chunking.go ("Servers with support for API chunking"), both tests,
// on both storage backends. Upstream lists 400 PodTemplates; this server serves no PodTemplates, so
// the same walk runs over 400 ConfigMaps named template-%04d. Kept from upstream: three full paging
// passes with a random limit per page, every page's resourceVersion equal to the first page's,
// remainingItemCount present exactly when `continue` is set and adding up to the total, every item
// checked by name in order (also after the inconsistent continue), and the all-at-once list.
// Changed: upstream polls until etcd's periodic compaction expires the first token; here one write
// (in another namespace, so the listed items stay exactly the 400) and an explicit compaction past
// the first page's revision expire it at once.

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

describe.each(["memory", "sqlite", "etcd"] as const)("[sig-api-machinery] Servers with support for API chunking (%s storage)", (backend) => {
  let server: TestServer;
  let http: KubeHttp;
  let ns: string;

  beforeAll(async () => {
    server = await startInProcess({ storage: backend });
    http = new KubeHttp(server.url);
    ns = await createTestNamespace(http, "chunking");
    // workqueue.ParallelizeUntil(ctx, 20, numberOfTotalResources, …)
    for (let start = 0; start < numberOfTotalResources; start += 20) {
      await Promise.all(
        Array.from({ length: 20 }, async (_, offset) => {
          expectStatus(await http.post(configMapPath(ns), { metadata: { name: name(start + offset) } }), 201);
        }),
      );
    }
  }, 60_000);

  afterAll(async () => {
    await server?.close();
  });

  async function list(limit: number, token = ""): Promise<Page> {
    const query = `limit=${limit}${token ? `&continue=${encodeURIComponent(token)}` : ""}`;
    const answer = await http.get<Page>(`${configMapPath(ns)}?${query}`);
    expectStatus(answer, 200);
    return answer.body;
  }

  /**
   * The checks upstream makes on every page: at most `limit` items, the walk's resourceVersion,
   * remainingItemCount set exactly when `continue` is, and the next names in order. Returns how
   * many items have been seen.
   */
  function checkPage(page: Page, limit: number, found: number, resourceVersion: string): number {
    expect(page.items.length).toBeLessThanOrEqual(limit);
    expect(page.metadata.resourceVersion).toBe(resourceVersion);
    if (page.metadata.continue) {
      expect(page.metadata.remainingItemCount, "remainingItemCount must accompany continue").toBeTypeOf("number");
      expect(page.metadata.remainingItemCount! + page.items.length + found).toBe(numberOfTotalResources);
    } else {
      expect(page.metadata.remainingItemCount).toBeUndefined();
    }
    for (const item of page.items) {
      expect(item.metadata.name).toBe(name(found));
      found++;
    }
    return found;
  }

  it("should return chunks of results for list calls", async () => {
    // retrieving those results in paged fashion several times
    for (let pass = 0; pass < 3; pass++) {
      let found = 0;
      let lastRV = "";
      let token = "";
      for (;;) {
        const limit = Math.floor(Math.random() * (numberOfTotalResources / 10)) + 1;
        const page = await list(limit, token);
        lastRV ||= page.metadata.resourceVersion;
        found = checkPage(page, limit, found, lastRV);
        if (!page.metadata.continue) break;
        token = page.metadata.continue;
      }
      expect(found).toBe(numberOfTotalResources);
    }

    // retrieving those results all at once
    const all = await list(numberOfTotalResources + 1);
    expect(all.items).toHaveLength(numberOfTotalResources);
    expect(checkPage(all, numberOfTotalResources + 1, 0, all.metadata.resourceVersion)).toBe(numberOfTotalResources);
  });

  it("should support continue listing from the last key if the original version has been compacted away, though the list is inconsistent", async () => {
    const storage = server.storage;
    if (!storage) throw new Error("the in-process server exposes its storage");

    // retrieving the first page
    const oneTenth = numberOfTotalResources / 10;
    const first = await list(oneTenth);
    const firstToken = first.metadata.continue ?? "";
    const firstRV = first.metadata.resourceVersion;
    expect(firstToken).not.toBe("");
    checkPage(first, oneTenth, 0, firstRV);

    // retrieving the second page until the token expires: one write elsewhere, then compaction past it
    const elsewhere = await createTestNamespace(http, "chunking-writes");
    expectStatus(await http.post(configMapPath(elsewhere), { metadata: { name: "written-after-first-page" } }), 201);
    await storage.compact(await storage.currentRevision());
    const expired = await http.get<StatusBody>(`${configMapPath(ns)}?limit=${oneTenth}&continue=${encodeURIComponent(firstToken)}`);
    expect(expired.status, expired.text).toBe(410);
    expect(expired.body.reason).toBe("Expired");
    const inconsistentToken = expired.body.metadata.continue ?? "";
    expect(inconsistentToken).not.toBe("");

    // retrieving the second page again with the token received with the error message
    const second = await list(oneTenth, inconsistentToken);
    expect(second.metadata.resourceVersion).not.toBe(firstRV);
    expect(second.items).toHaveLength(oneTenth);
    const lastRV = second.metadata.resourceVersion;
    let found = checkPage(second, oneTenth, oneTenth, lastRV);

    // retrieving all remaining pages
    let token = second.metadata.continue ?? "";
    while (token) {
      const page = await list(oneTenth, token);
      found = checkPage(page, oneTenth, found, lastRV);
      token = page.metadata.continue ?? "";
    }
    expect(found).toBe(numberOfTotalResources);
  });
});
