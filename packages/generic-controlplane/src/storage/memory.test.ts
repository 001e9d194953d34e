import { describe, expect, it } from "vitest";
import { runStorageConformance } from "./conformance.js";
import { createMemoryStorage } from "./memory.js";

runStorageConformance("memory", () => createMemoryStorage({ compactInterval: 0 }));

describe("createMemoryStorage", () => {
  it("compacts itself on an interval, to what was current an interval earlier", async () => {
    const storage = createMemoryStorage({ compactInterval: 10 });
    try {
      for (let i = 0; i < 20; i++) await storage.create(`/m/${i}`, "v");
      // Twenty revisions are far fewer than minRetainRevisions: time alone expires them.
      const deadline = Date.now() + 2000;
      while ((await storage.compactedRevision()) !== 20 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      expect(await storage.compactedRevision()).toBe(20);
      expect(await storage.count("/m")).toBe(20);
    } finally {
      await storage.close();
    }
  });

  it("lists every key in order, one page after another, whatever order keys were created, deleted and compacted in", async () => {
    const storage = createMemoryStorage({ compactInterval: 0 });
    try {
      const live = new Set<string>();
      let seed = 7;
      const random = (n: number) => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return seed % n;
      };
      for (let round = 0; round < 40; round++) {
        for (let i = 0; i < 50; i++) {
          const key = `/r/${["a", "b", "c"][random(3)]}/${random(400)}`;
          if (live.has(key)) {
            await storage.delete(key);
            live.delete(key);
          } else if (!(await storage.get(key))) {
            await storage.create(key, "v");
            live.add(key);
          }
        }
        if (round % 7 === 3) await storage.compact(await storage.currentRevision());
        const expected = [...live].filter((key) => key.startsWith("/r/b/")).sort();
        const listed: string[] = [];
        let startAfter: string | undefined;
        for (;;) {
          const page = await storage.list("/r/b", { limit: 17, ...(startAfter === undefined ? {} : { startAfter }) });
          listed.push(...page.items.map((kv) => kv.key));
          if (page.remaining === 0) break;
          startAfter = page.items[page.items.length - 1]!.key;
        }
        expect(listed).toEqual(expected);
        expect(await storage.count("/r/b")).toBe(expected.length);
      }
    } finally {
      await storage.close();
    }
  });
});
