import { describe, expect, it } from "vitest";
import { LiveCounts } from "./live-counts.js";
import type { KeyValue, StorageEvent } from "./types.js";

const kv = (key: string, revision: number): KeyValue => ({ key, value: "v", createRevision: revision, modRevision: revision });

describe("LiveCounts", () => {
  it("counts a directory once, then follows creates and deletes under it and its parents", () => {
    const counts = new LiveCounts();
    let scans = 0;
    expect(counts.get("/r/cm/a/", () => (scans++, 2))).toBe(2);
    expect(counts.get("/r/cm/", () => (scans++, 5))).toBe(5);
    const events: StorageEvent[] = [
      { type: "put", kv: kv("/r/cm/a/x", 10), prev: undefined },
      { type: "put", kv: kv("/r/cm/a/x", 11), prev: kv("/r/cm/a/x", 10) },
      { type: "put", kv: kv("/r/cm/b/y", 12), prev: undefined },
      { type: "delete", kv: kv("/r/cm/a/z", 13), prev: kv("/r/cm/a/z", 3) },
      { type: "put", kv: kv("/r/cmx/a/q", 14), prev: undefined },
    ];
    counts.apply(events);
    expect(counts.get("/r/cm/a/", () => (scans++, -1))).toBe(2);
    expect(counts.get("/r/cm/", () => (scans++, -1))).toBe(6);
    expect(scans).toBe(2);
  });

  it("forgets the oldest directory beyond its capacity and counts it again", () => {
    const counts = new LiveCounts(2);
    counts.get("/a/", () => 1);
    counts.get("/b/", () => 2);
    counts.get("/c/", () => 3);
    let scanned = false;
    expect(counts.get("/a/", () => ((scanned = true), 7))).toBe(7);
    expect(scanned).toBe(true);
  });
});
