import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Options } from "tsup";

/** The build every package shares: ESM + CJS + declarations for Node 22.19+. */
export function packageBuild(packageDir: string, overrides: Options = {}): Options {
  const pkg = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { version: string };
  return {
    entry: ["src/index.ts"],
    format: ["esm", "cjs"],
    dts: true,
    sourcemap: true,
    clean: true,
    target: "node22",
    platform: "node",
    splitting: false,
    treeshake: true,
    define: { __PACKAGE_VERSION__: JSON.stringify(pkg.version) },
    ...overrides,
  };
}
