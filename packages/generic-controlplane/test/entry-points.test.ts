import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The subpath exports as a consumer loads them: by the package's name, through the exports map,
 * from dist/. Each entry loads in every format it declares, and the entries share one copy of
 * each module, so an error a backend from `/storage` throws is the root's `ControlPlaneError`.
 */
interface ExportTarget {
  import?: { types: string; default: string };
  require?: { types: string; default: string };
}

const packageDir = join(import.meta.dirname, "..");
const pkg = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as {
  name: string;
  exports: Record<string, ExportTarget | string>;
};
const requireFromPackage = createRequire(join(packageDir, "package.json"));
const entries = Object.entries(pkg.exports).filter((entry): entry is [string, ExportTarget] => typeof entry[1] === "object");
const specifier = (subpath: string) => (subpath === "." ? pkg.name : `${pkg.name}/${subpath.slice(2)}`);

function exportedNames(module: object): string[] {
  return Object.keys(module)
    .filter((name) => name !== "default" && name !== "__esModule")
    .sort();
}

type RootModule = typeof import("../src/index.js");
type StorageModule = typeof import("../src/storage/index.js");

describe(`${pkg.name} entry points as built`, () => {
  it("declares an ESM entry for every subpath", () => {
    expect(entries.length).toBeGreaterThan(1);
    for (const [subpath, target] of entries) expect(target.import?.default, subpath).toMatch(/^\.\/dist\/.+\.js$/);
  });

  it.each(entries.map(([subpath]) => subpath))(
    "%s loads as ESM, and as CJS with the same names when it declares CJS",
    async (subpath) => {
      const target = pkg.exports[subpath] as ExportTarget;
      const esm = (await import(specifier(subpath))) as object;
      expect(exportedNames(esm).length).toBeGreaterThan(0);
      if (target.require === undefined) {
        expect(() => requireFromPackage(specifier(subpath))).toThrow(/not defined by "exports"|ERR_PACKAGE_PATH_NOT_EXPORTED/);
        return;
      }
      const resolved = requireFromPackage.resolve(specifier(subpath));
      expect(resolved).toMatch(/[/\\]dist[/\\].+\.cjs$/);
      expect(exportedNames(requireFromPackage(specifier(subpath)) as object)).toEqual(exportedNames(esm));
    },
    30_000,
  );

  it("shares one ControlPlaneError between the root and /storage (ESM)", async () => {
    const root = (await import(pkg.name)) as RootModule;
    const storage = (await import(`${pkg.name}/storage`)) as StorageModule;
    const backend = storage.createMemoryStorage({ compactInterval: 0 });
    await backend.create("/registry/things/a", "1");
    const error: unknown = await backend.create("/registry/things/a", "2").catch((e: unknown) => e);
    await backend.close();
    expect(error).toBeInstanceOf(root.ControlPlaneError);
    expect((error as InstanceType<RootModule["ControlPlaneError"]>).code).toBe("AlreadyExists");
  });

  it("builds the catalogue's errors as the root's ControlPlaneError, from the root and from /storage", async () => {
    const root = (await import(pkg.name)) as RootModule;
    const storage = (await import(`${pkg.name}/storage`)) as StorageModule;
    const missing = root.notFound({ group: "coordination.k8s.io", resource: "leases" }, "l");
    expect(missing).toBeInstanceOf(root.ControlPlaneError);
    expect(missing.toStatus()).toMatchObject({ reason: "NotFound", code: 404, message: 'leases.coordination.k8s.io "l" not found' });
    expect(storage.keyExists("/registry/things/a")).toBeInstanceOf(root.ControlPlaneError);
  });

  it("shares one ControlPlaneError between the root and /storage (CJS)", async () => {
    const root = requireFromPackage(pkg.name) as RootModule;
    const storage = requireFromPackage(`${pkg.name}/storage`) as StorageModule;
    const backend = storage.createMemoryStorage({ compactInterval: 0 });
    await backend.create("/registry/things/a", "1");
    const error: unknown = await backend.create("/registry/things/a", "2").catch((e: unknown) => e);
    await backend.close();
    expect(error).toBeInstanceOf(root.ControlPlaneError);
  });
});
