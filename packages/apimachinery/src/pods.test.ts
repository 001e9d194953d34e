// The rules of pkg/controller/controller_utils.go (IsPodActive) and pkg/api/v1/pod/util.go
// (IsPodPhaseTerminal, IsPodTerminal), checked against the pod states those functions distinguish.
import { describe, expect, it } from "vitest";
import { isPodActive, isPodPhaseTerminal, isPodTerminal } from "./pods.js";

const pod = (phase: string | undefined, deleting = false) => ({
  metadata: deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {},
  status: phase === undefined ? {} : { phase },
});

describe("isPodActive (controller.IsPodActive)", () => {
  it.each([
    ["Pending", false, true],
    ["Running", false, true],
    ["Unknown", false, true],
    [undefined, false, true],
    ["Succeeded", false, false],
    ["Failed", false, false],
    ["Running", true, false],
    ["Pending", true, false],
  ] as const)("a %s pod (being deleted: %s) is active: %s", (phase, deleting, active) => {
    expect(isPodActive(pod(phase, deleting))).toBe(active);
  });

  it("reads a deletionTimestamp of any type (a client's Date as well as JSON's string)", () => {
    expect(isPodActive({ metadata: { deletionTimestamp: new Date(0) }, status: { phase: "Running" } })).toBe(false);
    expect(isPodActive({ metadata: { deletionTimestamp: null }, status: { phase: "Running" } })).toBe(true);
    expect(isPodActive({})).toBe(true);
  });
});

describe("isPodTerminal (podutil.IsPodTerminal)", () => {
  it.each([
    ["Pending", false],
    ["Running", false],
    ["Unknown", false],
    ["Succeeded", true],
    ["Failed", true],
  ] as const)("a %s pod is terminal: %s", (phase, terminal) => {
    expect(isPodPhaseTerminal(phase)).toBe(terminal);
    expect(isPodTerminal(pod(phase))).toBe(terminal);
  });

  it("does not count a running pod that is being deleted as terminal: it still holds its resources", () => {
    expect(isPodTerminal(pod("Running", true))).toBe(false);
  });
});
