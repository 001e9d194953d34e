import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
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

interface Manifest {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

function readManifest(path: string): Manifest {
  return JSON.parse(readFileSync(path, "utf8")) as Manifest;
}

/**
 * The build of an example's binary: one ESM file that bundles the workspace libraries named in
 * `bundle`, so the binary keeps running while their dist/ is rebuilt. Everything else stays an
 * import resolved from node_modules: the binary's own dependencies and the dependencies and peer
 * dependencies of each bundled library, all read from their package.json files.
 */
export function bundledBinaryBuild(packageDir: string, bundle: readonly string[], overrides: Options = {}): Options {
  const own = readManifest(join(packageDir, "package.json"));
  const resolveFromPackage = createRequire(join(packageDir, "package.json"));
  const external = new Set(Object.keys(own.dependencies ?? {}).filter((name) => !bundle.includes(name)));
  for (const library of bundle) {
    const manifest = readManifest(resolveFromPackage.resolve(`${library}/package.json`));
    for (const name of [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]) external.add(name);
  }
  return {
    entry: { main: "src/main.ts" },
    format: ["esm"],
    target: "node22",
    platform: "node",
    sourcemap: true,
    clean: true,
    splitting: false,
    banner: { js: "#!/usr/bin/env node" },
    noExternal: [...bundle],
    external: [...external],
    ...overrides,
  };
}
