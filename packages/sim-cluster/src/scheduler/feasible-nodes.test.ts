import { describe, expect, it } from "vitest";
import { numFeasibleNodesToFind } from "./scheduler.js";

// The cases of upstream's pkg/scheduler/schedule_one_test.go TestNumFeasibleNodesToFind with the
// default percentageOfNodesToScore (0: adaptive).
describe("numFeasibleNodesToFind", () => {
  it.each([
    [10, 10],
    [99, 99],
    [100, 100],
    [1000, 420],
    [5000, 500],
    [6000, 300],
    [10_000, 500],
  ])("with %i nodes stops at %i feasible ones", (nodes, expected) => {
    expect(numFeasibleNodesToFind(nodes)).toBe(expected);
  });
});
