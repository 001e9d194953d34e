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
// Kept too: the second test polls until the server's own periodic compaction expires the first
// token. Changed: the compaction interval is 1 s instead of 5 minutes (and the poll scaled with
// it), and the controller manager runs beside the server as in a cluster, its Lease renewals every
// 2 s being the writes that move the revision on; the wait allows for one of them on top of
// upstream's two intervals.

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

/** storagebackend.DefaultCompactInterval, shortened. */
const compactIntervalMs = 1000;
const pollIntervalMs = compactIntervalMs / 15;
const expiryTimeoutMs = 2 * compactIntervalMs + 2 * 2000;

const name = (i: number) => `template-${String(i).padStart(4, "0")}`;

describe.each(["memory", "sqlite", "etcd"] as const)(
  "[sig-api-machinery] Servers with support for API chunking (%s storage)",
  (backend) => {
    let server: TestServer;
    let http: KubeHttp;
    let ns: string;

    beforeAll(async () => {
      server = await startInProcess({ storage: backend, controllers: true, compactIntervalMs });
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
      // retrieving the first page
      const oneTenth = numberOfTotalResources / 10;
      const first = await list(oneTenth);
      const firstToken = first.metadata.continue ?? "";
      const firstRV = first.metadata.resourceVersion;
      expect(firstToken).not.toBe("");
      checkPage(first, oneTenth, 0, firstRV);

      // retrieving the second page until the token expires
      let inconsistentToken = "";
      const deadline = Date.now() + expiryTimeoutMs;
      while (Date.now() < deadline) {
        const answer = await http.get<StatusBody>(`${configMapPath(ns)}?limit=${oneTenth}&continue=${encodeURIComponent(firstToken)}`);
        if (answer.status === 200) {
          // Token has not expired yet
          await new Promise((resolve) => setTimeout(resolve, pollIntervalMs));
          continue;
        }
        expect(answer.status, answer.text).toBe(410);
        expect(answer.body.reason).toBe("Expired");
        inconsistentToken = answer.body.metadata.continue ?? "";
        expect(inconsistentToken, "expect non empty continue token").not.toBe("");
        break;
      }

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
    }, 30_000);
  },
);
