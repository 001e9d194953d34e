import { defineConfig } from "tsup";
import { packageBuild } from "../../tsup.shared.js";

// Both entries share chunks (splitting), so ApiError and the JSON helpers exist once.
export default defineConfig(
  packageBuild(import.meta.dirname, { entry: { index: "src/index.ts", "json/index": "src/json.ts" }, splitting: true }),
);
