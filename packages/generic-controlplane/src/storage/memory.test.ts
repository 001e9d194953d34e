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
});
