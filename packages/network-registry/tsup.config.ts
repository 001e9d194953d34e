import { defineConfig } from "tsup";
import { packageBuild } from "../../tsup.shared.js";

// The library ships ESM + CJS + types; the `kana` binary is ESM only and needs no types.
// The root entry and `/kube` share chunks (splitting), so both hand out one NetworkRegistryError class.
export default defineConfig([
  packageBuild(import.meta.dirname, { entry: { index: "src/index.ts", "kube/index": "src/kube/index.ts" }, splitting: true }),
  // Split, so the commands that need the optional API server library load it only when they run.
  packageBuild(import.meta.dirname, { entry: ["src/cli.ts"], format: ["esm"], dts: false, clean: false, splitting: true }),
]);
