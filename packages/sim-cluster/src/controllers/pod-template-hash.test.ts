import { describe, expect, it } from "vitest";
import { canonicalJson, sameJson } from "./pod-template-hash.js";

const status = () => ({
  phase: "Running",
  podIP: "10.244.0.5",
  conditions: [
    { type: "Ready", status: "True", lastTransitionTime: "2026-11-29T18:00:00Z" },
    { type: "PodScheduled", status: "True", lastTransitionTime: "2026-11-29T17:59:59Z" },
  ],
  containerStatuses: [{ name: "c", ready: true, restartCount: 0, state: { running: { startedAt: "2026-11-29T18:00:00Z" } } }],
});

// The kubelet and the scheduler compare statuses and specs with sameJson where they wrote both as
// canonicalJson: the two must agree on every JSON value they meet.
describe("sameJson", () => {
  it.each<[string, unknown, unknown, boolean]>([
    ["a status and its decoded copy", status(), JSON.parse(JSON.stringify(status())), true],
    ["the same keys in another order", { a: 1, b: { c: [1, 2], d: "x" } }, { b: { d: "x", c: [1, 2] }, a: 1 }, true],
    ["a key holding undefined is absent", { phase: "Running", message: undefined }, { phase: "Running" }, true],
    ["undefined is not null", { message: undefined }, { message: null }, false],
    [
      "a changed condition",
      status(),
      { ...status(), conditions: [{ ...status().conditions[0], status: "False" }, status().conditions[1]] },
      false,
    ],
    ["conditions in another order", status(), { ...status(), conditions: [...status().conditions].reverse() }, false],
    ["an added field", status(), { ...status(), hostIP: "172.18.0.2" }, false],
    ["a number is not its text", { restartCount: 1 }, { restartCount: "1" }, false],
    ["an array is not an object", { a: [] }, { a: {} }, false],
    ["arrays of other lengths", [1, 2], [1, 2, 3], false],
  ])("%s", (_name, a, b, expected) => {
    expect(canonicalJson(a) === canonicalJson(b)).toBe(expected);
    expect(sameJson(a, b)).toBe(expected);
    expect(sameJson(b, a)).toBe(expected);
  });
});
