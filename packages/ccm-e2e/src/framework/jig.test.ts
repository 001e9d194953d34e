import { describe, expect, it } from "vitest";
import type { TestContext } from "./context.js";
import { defaultLoadBalancerName, TestJig } from "./jig.js";

describe("TestJig", () => {
  it("labels its pods with a testid short enough to be a label value, however long the name", () => {
    const jig = new TestJig({ namespace: "ns" } as TestContext, "affinity-lb-esipp-transition");
    expect(jig.id).toMatch(/^affinity-lb-esipp-transiti-[0-9a-f-]{36}$/);
    expect(jig.labels.testid!.length).toBeLessThanOrEqual(63);
    expect(jig.newServiceTemplate("TCP").spec.selector).toEqual({ testid: jig.id });
  });

  it("names a load balancer as cloudprovider.DefaultLoadBalancerName does", () => {
    expect(defaultLoadBalancerName({ metadata: { name: "x", uid: "d466ad38-122c-41d7-832d-4de58e626ebf" }, spec: {} })).toBe(
      "ad466ad38122c41d7832d4de58e626eb",
    );
  });
});
