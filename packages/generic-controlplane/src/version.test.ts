import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { VERSION } from "./index.js";

describe("VERSION", () => {
  it("is the version in package.json, so users can log what they run", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
    expect(VERSION).toBe(pkg.version);
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
  });
});
