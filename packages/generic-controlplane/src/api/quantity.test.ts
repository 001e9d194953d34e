import { describe, expect, it } from "vitest";
import { QUANTITY_FORMAT_MESSAGE, parseMilli, parseQuantityScaled } from "./quantity.js";

describe("parseMilli", () => {
  it("reads decimal, binary and exponent forms as apimachinery does", () => {
    expect(parseMilli("100m")).toBe(100n);
    expect(parseMilli("2")).toBe(2000n);
    expect(parseMilli("1.5")).toBe(1500n);
    expect(parseMilli("1Ki")).toBe(1024_000n);
    expect(parseMilli("1Gi")).toBe(1073741824_000n);
    expect(parseMilli("1e3")).toBe(1_000_000n);
    expect(parseMilli("500M")).toBe(500_000_000_000n);
    expect(parseMilli("-1")).toBe(-1000n);
    // Below a milli-unit rounds up, like MilliValue.
    expect(parseMilli("1n")).toBe(1n);
  });

  it("rejects text that is not a quantity", () => {
    for (const bad of ["", "abc", "1x", "1.2.3", "Gi", "1 Gi", "1iG"]) expect(parseMilli(bad)).toBeUndefined();
  });
});

describe("parseQuantityScaled", () => {
  it("keeps nano units exact and rounds below them away from zero", () => {
    expect(parseQuantityScaled("1.5Gi", 9)).toEqual({ ok: true, value: 1610612736_000_000_000n });
    expect(parseQuantityScaled("1n", 9)).toEqual({ ok: true, value: 1n });
    expect(parseQuantityScaled("0.1n", 9)).toEqual({ ok: true, value: 1n });
    expect(parseQuantityScaled("-0.1n", 9)).toEqual({ ok: true, value: -1n });
  });

  it("says why text is not a quantity, in apimachinery's words", () => {
    expect(parseQuantityScaled("abc", 9)).toEqual({ ok: false, error: QUANTITY_FORMAT_MESSAGE });
    expect(parseQuantityScaled("1e", 9)).toEqual({ ok: false, error: "unable to parse quantity's suffix" });
    expect(parseQuantityScaled("1e10001", 9)).toEqual({ ok: false, error: QUANTITY_FORMAT_MESSAGE });
  });
});
