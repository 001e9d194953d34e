import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fillDiskUnder } from "../storage/disk-full.fixture.js";
import { createSqliteStorage } from "../storage/sqlite.js";
import { configMap, startTestPlane } from "./test-support.js";

describe("/readyz and storage failures", () => {
  it("fails the etcd check once writes fail on a full disk, instead of answering 200", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kubekit-health-"));
    const path = join(dir, "state.db");
    const t = await startTestPlane({ storage: await createSqliteStorage({ path, compactInterval: 0 }) });
    try {
      expect((await t.call("GET", "/readyz")).status).toBe(200);
      fillDiskUnder(path);
      const write = await t.call("POST", "/api/v1/namespaces/default/configmaps", { body: configMap("no-space") });
      expect(write.status).toBeGreaterThanOrEqual(500);
      const ready = await t.call("GET", "/readyz?verbose");
      expect(ready.status).toBe(500);
      expect(ready.text).toContain("[-]etcd failed");
      expect((await t.call("GET", "/readyz/etcd")).text).toMatch(
        /^internal server error: .*(database or disk is full|disk I\/O error|database disk image is malformed|file is not a database)/,
      );
      expect((await t.call("GET", "/livez")).status).toBe(500);
    } finally {
      await t.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
