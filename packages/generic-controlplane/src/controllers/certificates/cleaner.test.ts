import { describe, expect, it } from "vitest";
import { csrDeadline } from "./cleaner.js";

const HOUR = 3_600_000;

describe("csrDeadline", () => {
  it("gives a pending request 24 hours and a decided one an hour after the decision", () => {
    const created = "2026-01-01T00:00:00Z";
    expect(csrDeadline({ metadata: { creationTimestamp: created } })).toBe(Date.parse(created) + 24 * HOUR);
    for (const type of ["Approved", "Denied", "Failed"]) {
      const decided = "2026-01-01T05:00:00Z";
      expect(
        csrDeadline({
          metadata: { creationTimestamp: created },
          status: { conditions: [{ type, status: "True", lastUpdateTime: decided }] },
        }),
      ).toBe(Date.parse(decided) + HOUR);
    }
  });
});
