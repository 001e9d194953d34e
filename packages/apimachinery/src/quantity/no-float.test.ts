import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// Quantities are bigint nano counts end to end; these are the ways floating point would sneak in.
const FLOAT_MARKERS = /\bparseFloat\b|\bparseInt\b|\.toFixed\(|\bMath\.(round|ceil|floor|trunc|pow|log10)\b|\*\*\s*-?\d+\.\d|\b\d+\.\d+e\d/;

describe("no floating point in quantity code", () => {
  const dir = new URL(".", import.meta.url);
  const sources = readdirSync(dir).filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"));

  it.each(sources)("%s does no float arithmetic", (file) => {
    const code = readFileSync(new URL(file, dir), "utf8");
    expect(code.match(FLOAT_MARKERS)?.[0]).toBeUndefined();
  });

  it("the scan sees the sources and catches a float helper", () => {
    expect(sources).toContain("quantity.ts");
    expect(sources).toContain("parse.ts");
    expect("const x = Math.ceil(y * 1000);").toMatch(FLOAT_MARKERS);
  });
});
