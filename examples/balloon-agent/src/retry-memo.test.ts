import { describe, expect, it } from "vitest";
import { FailedResizes } from "./retry-memo.js";

describe("FailedResizes", () => {
  it("backs off exponentially while the inputs stay the same, up to the maximum", () => {
    const failures = new FailedResizes(1_000, 5_000);
    expect(failures.waitFor("n", "a", 0)).toBe(0);
    expect([1, 2, 3, 4].map((i) => failures.failed("n", "a", i * 100_000))).toEqual([1_000, 2_000, 4_000, 5_000]);
    expect(failures.waitFor("n", "a", 400_000 + 1_000)).toBe(4_000);
    expect(failures.waitFor("n", "a", 400_000 + 5_000)).toBe(0);
  });

  it("retries at once when the inputs changed, and starts the backoff over", () => {
    const failures = new FailedResizes(1_000, 60_000);
    failures.failed("n", "a", 0);
    failures.failed("n", "a", 0);
    expect(failures.waitFor("n", "a", 0)).toBe(2_000);
    expect(failures.waitFor("other", "a", 0)).toBe(0);
    expect(failures.waitFor("n", "b", 0)).toBe(0);
    expect(failures.failed("n", "b", 0)).toBe(1_000);
  });
});
