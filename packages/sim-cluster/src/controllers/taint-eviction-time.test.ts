import { describe, expect, it } from "vitest";
import type { Pod } from "../resources/pods.js";
import { evictionDelayMs } from "./taint-eviction-time.js";

// Upstream: pkg/controller/tainteviction/taint_eviction_test.go (TestGetMinTolerationTime, TestUpdateNode cases).

const pod = (tolerations: unknown[]): Pod => ({ metadata: { name: "p" }, spec: { tolerations } });
const unreachable = { key: "node.kubernetes.io/unreachable", effect: "NoExecute" };

describe("when a NoExecute taint evicts a pod", () => {
  it("never without a NoExecute taint, at once for an untolerated one", () => {
    expect(evictionDelayMs(pod([]), [{ key: "a", effect: "NoSchedule" }])).toBeUndefined();
    expect(evictionDelayMs(pod([]), [unreachable])).toBe(0);
    expect(evictionDelayMs(pod([{ key: "other", operator: "Exists", effect: "NoExecute" }]), [unreachable])).toBe(0);
  });

  it("after the shortest tolerationSeconds among the tolerations used, never when none has a limit", () => {
    expect(
      evictionDelayMs(pod([{ key: unreachable.key, operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 }]), [unreachable]),
    ).toBe(300_000);
    expect(evictionDelayMs(pod([{ key: unreachable.key, operator: "Exists", effect: "NoExecute" }]), [unreachable])).toBeUndefined();
    const two = [unreachable, { key: "dedicated", value: "gpu", effect: "NoExecute" }];
    const tolerations = [
      { key: unreachable.key, operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
      { key: "dedicated", value: "gpu", effect: "NoExecute", tolerationSeconds: 30 },
      { key: "unused", operator: "Exists", effect: "NoExecute", tolerationSeconds: 1 },
    ];
    expect(evictionDelayMs(pod(tolerations), two)).toBe(30_000);
    expect(evictionDelayMs(pod([{ operator: "Exists", tolerationSeconds: -5 }]), [unreachable])).toBe(0);
  });
});
