import { defineConfig } from "tsup";

export default defineConfig({
  entry: { main: "src/main.ts" },
  format: ["esm"],
  target: "node22",
  platform: "node",
  sourcemap: true,
  clean: true,
  splitting: false,
  banner: { js: "#!/usr/bin/env node" },
  // The library is bundled in, so the binary keeps running while the library's dist/ is rebuilt.
  // Its own dependencies stay imports, resolved from the workspace's node_modules.
  noExternal: ["@kubekit/generic-controlplane"],
  external: ["yaml", "prom-client", "protobufjs", "fast-json-patch", "ajv", "etcd3"],
});
