import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/** The `/kube` subpath as users load it: through the exports map, ESM and CJS. */
describe("@kubekit/network-registry/kube as built", () => {
  it("loads from ESM and shares the root entry's error class", { timeout: 30_000 }, async () => {
    const kube = (await import("@kubekit/network-registry/kube")) as unknown as typeof import("../src/kube/index.js");
    const root = (await import("@kubekit/network-registry")) as unknown as typeof import("../src/index.js");
    expect(typeof kube.runArbiter).toBe("function");
    expect(kube.installManifests().map((o) => o.kind)).toContain("CustomResourceDefinition");
    const error = (() => {
      try {
        kube.prefixObjectName("10.0.0.1/8");
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(root.NetworkRegistryError);
  });

  it("loads from CJS", () => {
    const require = createRequire(join(import.meta.dirname, "..", "package.json"));
    expect(require.resolve("@kubekit/network-registry/kube")).toMatch(/[/\\]dist[/\\]kube[/\\]index\.cjs$/);
    const kube = require("@kubekit/network-registry/kube") as typeof import("../src/kube/index.js");
    expect(typeof kube.claim).toBe("function");
  });
});
