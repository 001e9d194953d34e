import { defineConfig } from "tsup";
import { bundledBinaryBuild } from "../../tsup.shared.js";

// The libraries are bundled in, so the binary keeps running while their dist/ is rebuilt; their
// dependencies stay imports, taken from the package.json files.
export default defineConfig(bundledBinaryBuild(import.meta.dirname, ["@kubekit/sim-cluster", "@kubekit/generic-controlplane"]));
