import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createMemoryStorage } from "@kubekit/generic-controlplane/storage";
import { startTestPlane } from "@kubekit/generic-controlplane/testing";
import { runStorageConformance } from "@kubekit/generic-controlplane/testing/storage";
import { describe, expect, it } from "vitest";

// What a third-party backend's test file does: run the published conformance suite against it
// (here the memory backend, loaded like any consumer's through the package's entry points).
runStorageConformance("memory backend through @kubekit/generic-controlplane/testing/storage", () =>
  createMemoryStorage({ compactInterval: 0 }),
);

describe("startTestPlane from @kubekit/generic-controlplane/testing", () => {
  it("serves a control plane on a free loopback port until closed", async () => {
    const test = await startTestPlane();
    try {
      expect(test.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const created = await test.call("POST", "/api/v1/namespaces/default/configmaps", {
        body: { metadata: { name: "probe" }, data: { a: "1" } },
      });
      expect(created.status).toBe(201);
      const read = await test.call("GET", "/api/v1/namespaces/default/configmaps/probe");
      expect(read.json).toMatchObject({ kind: "ConfigMap", metadata: { name: "probe" }, data: { a: "1" } });
    } finally {
      await test.close();
    }
    await expect(fetch(`${test.url}/healthz`)).rejects.toThrow();
  });

  // A project without vitest or fast-check installed: resolving either fails, as it would there.
  const withoutTestLibraries = `
    import { registerHooks } from "node:module";
    registerHooks({
      resolve(specifier, context, next) {
        if (/^(vitest|fast-check)(\\/|$)/.test(specifier)) throw new Error("not installed: " + specifier);
        return next(specifier, context);
      },
    });
  `;
  const startAndStop = (load: string) => `
    ${load}
    const test = await startTestPlane();
    const answer = await test.call("GET", "/api/v1/namespaces/default");
    await test.close();
    process.stdout.write(String(answer.status));
  `;

  const run = (code: string) =>
    spawnSync(process.execPath, ["--input-type=module", "-e", code], { cwd: import.meta.dirname, encoding: "utf8", timeout: 30_000 });

  it.each([
    ["ESM", `import { startTestPlane } from "@kubekit/generic-controlplane/testing";`],
    [
      "CJS",
      `import { createRequire } from "node:module"; const { startTestPlane } = createRequire(import.meta.url)("@kubekit/generic-controlplane/testing");`,
    ],
  ])("needs neither vitest nor fast-check (%s)", (_format, load) => {
    const started = run(withoutTestLibraries + startAndStop(load));
    expect(started.stderr).toBe("");
    expect(started.stdout).toBe("200");
  });

  it("leaves the storage suite, which needs both, to /testing/storage", () => {
    const suite = run(`${withoutTestLibraries} await import("@kubekit/generic-controlplane/testing/storage");`);
    expect(suite.status).not.toBe(0);
    expect(suite.stderr).toContain("not installed: ");
  });

  it("is documented by a README example that is this package's test/readme-testing-example.test.ts, verbatim", () => {
    const readme = readFileSync(join(import.meta.dirname, "..", "README.md"), "utf8");
    const example = readFileSync(join(import.meta.dirname, "readme-testing-example.test.ts"), "utf8");
    // A fragment to the README's consumer check (a vitest file, not a program); run here instead.
    expect(readme).toContain("```ts fragment\n" + example + "```\n");
  });
});
