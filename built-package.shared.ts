import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

interface PackageJson {
  name: string;
  version: string;
  license: string;
}

/**
 * Checks the artefact users install, not the sources: the package is loaded by its own name, so
 * resolution goes through the `exports` map to `dist/` exactly as in a consumer's project, for both
 * ESM and CJS. The version each build reports must be the package.json version tsup injected.
 */
export function describeBuiltPackage(packageDir: string): void {
  const pkg = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as PackageJson;
  describe(`${pkg.name} as built`, () => {
    it("reports its package.json version from the ESM entry point", async () => {
      const esm = (await import(pkg.name)) as { VERSION?: unknown };
      expect(esm.VERSION).toBe(pkg.version);
    });

    it("reports its package.json version from the CJS entry point", () => {
      const requireFromPackage = createRequire(join(packageDir, "package.json"));
      const resolved = requireFromPackage.resolve(pkg.name);
      expect(resolved).toMatch(/[/\\]dist[/\\][^/\\]+\.cjs$/);
      const cjs = requireFromPackage(pkg.name) as { VERSION?: unknown };
      expect(cjs.VERSION).toBe(pkg.version);
    });

    it("publishes cleanly: npm publish --dry-run warns about nothing but the missing login", () => {
      const result = spawnSync("npm", ["publish", "--dry-run", "--ignore-scripts"], { cwd: packageDir, encoding: "utf8" });
      expect(result.status, result.stderr).toBe(0);
      const warnings = result.stderr
        .split("\n")
        .filter((line) => line.startsWith("npm warn") && !line.includes("requires you to be logged in"));
      expect(warnings).toEqual([]);
      expect(result.stdout).toContain(`+ ${pkg.name}@${pkg.version}`);
    });

    it("ships its license text in the tarball npm would publish", () => {
      const [packed] = JSON.parse(
        execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: packageDir, encoding: "utf8" }),
      ) as Array<{ files: Array<{ path: string }> }>;
      expect(packed!.files.map((file) => file.path)).toContain("LICENSE");
      expect(pkg.license).toBe("Apache-2.0");
      expect(readFileSync(join(packageDir, "LICENSE"), "utf8")).toContain(
        "Apache License\n                           Version 2.0, January 2004",
      );
    });
  });
}
