import { describe, expect, it } from "vitest";
import { parseMilli } from "./quantity.js";

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

describe("binary quantities at and above 8Ei", () => {
  it("are capped at the int64 maximum as apimachinery's ParseQuantity caps them, like every other package reads them", () => {
    const MAX_INT64 = (1n << 63n) - 1n;
    expect(parseMilli("7Ei")).toBe(7n * 2n ** 60n * 1000n);
    expect(parseMilli("8Ei")).toBe(MAX_INT64 * 1000n);
    expect(parseMilli("16Ei")).toBe(MAX_INT64 * 1000n);
    expect(parseMilli("-16Ei")).toBe(-MAX_INT64 * 1000n);
    // Decimal suffixes are not capped.
    expect(parseMilli("16E")).toBe(16n * 10n ** 18n * 1000n);
  });
});

describe("formatQuantity", () => {
  it("prints resource.Quantity.String(): the largest suffix that keeps the number whole, in the quantity's format", async () => {
    const { formatQuantity, quantityFormatOf } = await import("./quantity.js");
    const print = (text: string) => formatQuantity(parseMilli(text)!, quantityFormatOf(text));
    expect(print("2000m")).toBe("2");
    expect(print("1500m")).toBe("1500m");
    expect(print("0.5")).toBe("500m");
    expect(print("2000")).toBe("2k");
    expect(print("1500")).toBe("1500");
    expect(print("252Mi")).toBe("252Mi");
    expect(print("1024Mi")).toBe("1Gi");
    expect(print("1536Mi")).toBe("1536Mi");
    // Binary amounts under 1024, or with a fraction, print in decimal, as apimachinery's do.
    expect(print("0.5Ki")).toBe("512");
    expect(print("1e3")).toBe("1e3");
    expect(print("0")).toBe("0");
    expect(formatQuantity(-1500n)).toBe("-1500m");
    // Exact far beyond 2^53.
    expect(formatQuantity(9007199254740993_000n)).toBe("9007199254740993");
  });
});
