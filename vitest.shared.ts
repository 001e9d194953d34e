import { readFileSync } from "node:fs";
import { join } from "node:path";
import { defineConfig, type ViteUserConfig } from "vitest/config";

interface PackageJson {
  name: string;
  version: string;
}

/**
 * The vitest project every package uses: tests sit beside the code, and each run writes a JSON
 * report to `.nx-test-results/` so the root test command can print one summed result line.
 */
export function packageProject(packageDir: string, overrides: NonNullable<ViteUserConfig["test"]> = {}) {
  const pkg = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as PackageJson;
  return defineConfig({
    define: { __PACKAGE_VERSION__: JSON.stringify(pkg.version) },
    test: {
      name: pkg.name,
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      environment: "node",
      reporters: ["default", "json"],
      // Named like the nx project (the package name), so nx's `test` outputs restore it on a cache hit.
      outputFile: { json: join(packageDir, "..", "..", ".nx-test-results", `${pkg.name}.json`) },
      ...overrides,
    },
  });
}
