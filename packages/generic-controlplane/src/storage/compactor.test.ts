import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startCompactor } from "./compactor.js";

/** A backend's revision counters, without the data. */
class Revisions {
  current = 0;
  compacted = 0;
  readonly compactions: number[] = [];
  currentRevision = () => Promise.resolve(this.current);
  compactedRevision = () => Promise.resolve(this.compacted);
  compact = (revision: number) => {
    this.compactions.push(revision);
    this.compacted = Math.max(this.compacted, revision);
    return Promise.resolve();
  };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("startCompactor", () => {
  it("compacts to what was current one interval ago, however few writes came since", async () => {
    const revisions = new Revisions();
    revisions.current = 40;
    const stop = startCompactor(revisions, { compactInterval: 1000 });
    try {
      // Startup: 40 revisions are fewer than minRetainRevisions keeps.
      await vi.advanceTimersByTimeAsync(1);
      expect(revisions.compactions).toEqual([]);
      revisions.current = 41; // one write, as a quiet server sees
      await vi.advanceTimersByTimeAsync(1000);
      expect(revisions.compacted).toBe(40);
      await vi.advanceTimersByTimeAsync(1000);
      expect(revisions.compacted).toBe(41);
      // Nothing written meanwhile: nothing more to compact.
      await vi.advanceTimersByTimeAsync(1000);
      expect(revisions.compactions).toEqual([40, 41]);
    } finally {
      stop();
    }
  });

  it("keeps minRetainRevisions at startup, when an interval ago is unknown", async () => {
    const revisions = new Revisions();
    revisions.current = 1500;
    const stop = startCompactor(revisions, { compactInterval: 3_600_000 });
    try {
      await vi.advanceTimersByTimeAsync(1);
      expect(revisions.compactions).toEqual([500]);
    } finally {
      stop();
    }
  });
});
