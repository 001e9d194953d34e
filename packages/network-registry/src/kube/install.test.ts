import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claim } from "./client.js";
import { install } from "./install.js";
import { startKanaPlane, type KanaPlane } from "./test-support.js";
import { runArbiter } from "./arbiter.js";

describe("install", () => {
  let plane: KanaPlane;
  beforeAll(async () => {
    plane = await startKanaPlane({}, { install: false });
  });
  afterAll(async () => {
    await plane?.close();
  });

  it("creates the CRDs and the policy, waits until the CRDs serve, and runs again as an update", async () => {
    const first = await install(plane.client, { clusterRoles: false });
    expect(first.map((o) => `${o.kind}/${o.metadata?.name}`)).toEqual([
      "CustomResourceDefinition/networkclaims.kana.kubekit.io",
      "CustomResourceDefinition/networkallocations.kana.kubekit.io",
      "ValidatingAdmissionPolicy/kana-well-known-claims",
      "ValidatingAdmissionPolicyBinding/kana-well-known-claims",
      "ValidatingAdmissionPolicy/kana-claim-owner",
      "ValidatingAdmissionPolicyBinding/kana-claim-owner",
      "ValidatingAdmissionPolicy/kana-arbiter-term",
      "ValidatingAdmissionPolicyBinding/kana-arbiter-term",
    ]);
    const again = await install(plane.client, { clusterRoles: false });
    expect(again.map((o) => o.metadata?.uid)).toEqual(first.map((o) => o.metadata?.uid));
    const arbiter = await runArbiter({ config: plane.url, leaderElection: false });
    try {
      expect(
        (
          await claim(plane.client, {
            metadata: { name: "x" },
            spec: { addressSpace: [{ reference: { group: "", resource: "services" }, prefix: "10.9.0.0/16" }] },
          })
        ).status?.phase,
      ).toBe("Allocated");
    } finally {
      await arbiter.stop();
    }
  });
});
