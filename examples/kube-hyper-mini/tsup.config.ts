import { defineConfig } from "tsup";
import { bundledBinaryBuild } from "../../tsup.shared.js";

// The library is bundled in, so the binary keeps running while the library's dist/ is rebuilt.
export default defineConfig(bundledBinaryBuild(import.meta.dirname, ["@kubekit/generic-controlplane"]));
