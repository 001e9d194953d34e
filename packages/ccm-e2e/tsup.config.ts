import { defineConfig } from "tsup";
import { packageBuild } from "../../tsup.shared.js";

// The library ships ESM + CJS + types; the `ccm-e2e` binary is ESM only and needs no types.
export default defineConfig([
  packageBuild(import.meta.dirname),
  packageBuild(import.meta.dirname, { entry: ["src/cli.ts"], format: ["esm"], dts: false, clean: false }),
]);
