import { describe, expect, it } from "vitest";
import { prefixObjectName } from "./api.js";

describe("prefixObjectName", () => {
  it("spells a canonical prefix as an object name, as upstream names IPAddress objects after their address", () => {
    expect(prefixObjectName("10.244.1.0/24")).toBe("10.244.1.0-24");
    expect(prefixObjectName("fd00:10:96::/112")).toBe("fd00-10-96---112");
    expect(prefixObjectName("::/96")).toBe("0---96");
  });

  it("refuses a non-canonical prefix instead of naming it", () => {
    expect(() => prefixObjectName("10.244.1.1/24")).toThrow(expect.objectContaining({ code: "invalid-prefix" }) as Error);
  });
});
