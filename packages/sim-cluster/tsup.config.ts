import { defineConfig } from "tsup";
import { packageBuild } from "../../tsup.shared.js";

// The node threads' and the scheduler thread's workers are files of their own beside the entries,
// found from them by `new URL("./<worker>.js", import.meta.url)`: ESM only, as the CommonJS entry
// reaches them through tsup's import.meta.url shim (a worker shares no module state with its parent anyway).
export default defineConfig([
  packageBuild(import.meta.dirname, { shims: true }),
  packageBuild(import.meta.dirname, {
    entry: {
      "node-thread-worker": "src/kubelet/node-thread-worker.ts",
      "scheduler-thread-worker": "src/scheduler/scheduler-thread-worker.ts",
    },
    format: ["esm"],
    dts: false,
    clean: false,
  }),
]);
