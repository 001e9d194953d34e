import { defineConfig } from "tsup";
import { packageBuild } from "../../tsup.shared.js";

export default defineConfig(packageBuild(import.meta.dirname, { entry: { index: "src/index.ts" } }));
