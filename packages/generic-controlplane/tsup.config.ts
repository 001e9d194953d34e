import { defineConfig } from "tsup";
import { packageBuild } from "../../tsup.shared.js";

// One entry per subpath export. Splitting puts shared code in chunks, so the entries share one
// copy of each module (one ControlPlaneError class, whichever entry a consumer imports it through).
// `/testing/storage` is ESM only: it imports vitest, which cannot be required.
export default defineConfig(
  packageBuild(import.meta.dirname, {
    entry: {
      index: "src/index.ts",
      "storage/index": "src/storage/index.ts",
      "storage/etcd": "src/storage/etcd-entry.ts",
      "registry/index": "src/registry/index.ts",
      "server/index": "src/server/index.ts",
      "controllers/index": "src/controllers/index.ts",
      "client/index": "src/controllers/client-entry.ts",
      "testing/index": "src/testing/index.ts",
      "testing/storage": "src/testing/storage.ts",
    },
    splitting: true,
    esbuildOptions(options, { format }) {
      if (format === "cjs" && options.entryPoints !== undefined && !Array.isArray(options.entryPoints)) {
        options.entryPoints = Object.fromEntries(Object.entries(options.entryPoints).filter(([name]) => name !== "testing/storage"));
      }
    },
  }),
);
