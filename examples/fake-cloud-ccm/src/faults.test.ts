import { describe, expect, it } from "vitest";
import { FAULTS, parseFault } from "./faults.js";

describe("parseFault", () => {
  it("reads a known fault, nothing for empty, and refuses others naming the known ones", () => {
    expect(parseFault("ignore-protocol")).toBe("ignore-protocol");
    expect(parseFault(undefined)).toBeUndefined();
    expect(parseFault("")).toBeUndefined();
    expect(() => parseFault("ignore-ports")).toThrow(`unknown fault "ignore-ports"; known faults: ${FAULTS.join(", ")}`);
  });
});
