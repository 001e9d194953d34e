import { describe, expect, it } from "vitest";
import type { Pod } from "../resources/pods.js";
import { claimsOfPod, podUsesClaim } from "./pvc-protection.js";

// After pkg/controller/volume/pvcprotection's pvc_protection_controller_test.go.
const claim = { metadata: { name: "data", namespace: "ns" } };
const pod = (spec: Record<string, unknown>, phase = "Running"): Pod => ({
  metadata: { name: "p", namespace: "ns" },
  spec: { nodeName: "node-1", ...spec },
  status: { phase },
});

describe("podUsesClaim", () => {
  it("a scheduled, non-terminal pod whose volume names the claim uses it", () => {
    expect(podUsesClaim(pod({ volumes: [{ name: "v", persistentVolumeClaim: { claimName: "data" } }] }), claim)).toBe(true);
    expect(podUsesClaim(pod({ volumes: [{ name: "v", persistentVolumeClaim: { claimName: "other" } }] }), claim)).toBe(false);
  });

  it("an unscheduled pod, a terminal pod or a pod of another namespace does not", () => {
    const volumes = [{ name: "v", persistentVolumeClaim: { claimName: "data" } }];
    expect(podUsesClaim(pod({ volumes, nodeName: "" }), claim)).toBe(false);
    expect(podUsesClaim(pod({ volumes }, "Succeeded"), claim)).toBe(false);
    expect(podUsesClaim(pod({ volumes }, "Failed"), claim)).toBe(false);
    expect(podUsesClaim({ ...pod({ volumes }), metadata: { name: "p", namespace: "elsewhere" } }, claim)).toBe(false);
  });

  it("a generic ephemeral volume uses the claim `<pod>-<volume>`", () => {
    const ephemeral = pod({ volumes: [{ name: "data", ephemeral: { volumeClaimTemplate: { spec: {} } } }] });
    expect(claimsOfPod(ephemeral)).toEqual(["p-data"]);
    expect(podUsesClaim(ephemeral, { metadata: { name: "p-data", namespace: "ns" } })).toBe(true);
  });
});
