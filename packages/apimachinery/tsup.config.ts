import { defineConfig } from "tsup";
import { packageBuild } from "../../tsup.shared.js";

// The regex entry is separate so only its users need re2js (an optional peer dependency).
export default defineConfig(packageBuild(import.meta.dirname, { entry: { index: "src/index.ts", "regex/index": "src/regex/index.ts" } }));
