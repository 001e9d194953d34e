import { defineConfig } from "tsup";
import { packageBuild } from "../../tsup.shared.js";

// The node threads' worker is its own file beside the entries, found from them by
// `new URL("./node-thread-worker.js", import.meta.url)`: ESM only, as the CommonJS entry reaches it
// through tsup's import.meta.url shim (the worker shares no module state with its parent anyway).
export default defineConfig([
  packageBuild(import.meta.dirname, { shims: true }),
  packageBuild(import.meta.dirname, {
    entry: { "node-thread-worker": "src/kubelet/node-thread-worker.ts" },
    format: ["esm"],
    dts: false,
    clean: false,
  }),
]);
