/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read arbitrary JSON responses */
import { afterEach, describe, expect, it } from "vitest";
import { configMap, startTestPlane, type TestPlane } from "../src/server/test-support.js";
import { createMemoryStorage } from "../src/storage/memory.js";
import type { Storage } from "../src/storage/types.js";

/** A memory storage that counts keyed reads of namespaces. */
function countingStorage(): { storage: Storage; namespaceReads: () => number } {
  const storage = createMemoryStorage();
  let reads = 0;
  const get = storage.get.bind(storage);
  storage.get = (key, options) => {
    if (key.startsWith("/registry/namespaces/")) reads++;
    return get(key, options);
  };
  return { storage, namespaceReads: () => reads };
}

let t: TestPlane | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe("NamespaceLifecycle", () => {
  it("reads namespaces from its watch-fed cache: creates in a known namespace cost no storage read", async () => {
    const { storage, namespaceReads } = countingStorage();
    t = await startTestPlane({ storage });
    expect((await t.call("POST", "/api/v1/namespaces", { body: { metadata: { name: "busy" } } })).status).toBe(201);
    expect((await t.call("POST", "/api/v1/namespaces/busy/configmaps", { body: configMap("first") })).status).toBe(201);
    // Once the cache has seen the namespace, no create reads it again.
    const deadline = Date.now() + 5000;
    let before = namespaceReads();
    for (let i = 0; ; i++) {
      expect((await t.call("POST", "/api/v1/namespaces/busy/configmaps", { body: configMap(`warm-${i}`) })).status).toBe(201);
      if (namespaceReads() === before) break;
      if (Date.now() > deadline) throw new Error("the namespace cache never served a create");
      before = namespaceReads();
    }
    for (let i = 0; i < 20; i++)
      expect((await t.call("POST", "/api/v1/namespaces/busy/configmaps", { body: configMap(`c-${i}`) })).status).toBe(201);
    expect(namespaceReads()).toBe(before);
  });

  it("finds a namespace the cache has not seen yet in storage, and refuses creates right after its deletion", async () => {
    const storage = createMemoryStorage();
    t = await startTestPlane({ storage });
    expect((await t.call("POST", "/api/v1/namespaces/default/configmaps", { body: configMap("warm") })).status).toBe(201);
    // Written by another server on the same store: this one's cache has not seen it.
    const namespace = {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "elsewhere", uid: "u-1", creationTimestamp: "2026-01-01T00:00:00Z" },
      spec: { finalizers: ["kubernetes"] },
      status: { phase: "Active" },
    };
    await storage.create("/registry/namespaces/elsewhere", JSON.stringify(namespace));
    expect((await t.call("POST", "/api/v1/namespaces/elsewhere/configmaps", { body: configMap("at-once") })).status).toBe(201);
    expect((await t.call("DELETE", "/api/v1/namespaces/elsewhere")).status).toBe(200);
    const late = await t.call("POST", "/api/v1/namespaces/elsewhere/configmaps", { body: configMap("late") });
    expect(late.status).toBe(403);
    expect(late.json.details.causes).toEqual([
      { reason: "NamespaceTerminating", message: "namespace elsewhere is being terminated", field: "metadata.namespace" },
    ]);
    expect((await t.call("POST", "/api/v1/namespaces/missing/configmaps", { body: configMap("x") })).status).toBe(404);
  });
});
