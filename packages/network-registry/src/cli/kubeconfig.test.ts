import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CliError } from "./cli-error.js";
import { resolveClientConfig } from "./kubeconfig.js";

// How kubeconfigs are found and merged is the controller runtime's loadKubeconfig (tested there);
// this is what the CLI makes of it.
let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "kana-kubeconfig-"));
  await writeFile(
    join(dir, "config"),
    "current-context: c\nclusters: [{ name: c, cluster: { server: 'https://a.example:6443' } }]\nusers: [{ name: u, user: { token: t } }]\ncontexts: [{ name: c, context: { cluster: c, user: u } }]\n",
  );
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function failure(promise: Promise<unknown>): Promise<CliError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof CliError) return error;
    throw error;
  }
  throw new Error("expected a CliError");
}

describe("resolveClientConfig", () => {
  it("connects as kana with the context kubectl would use", async () => {
    expect(await resolveClientConfig({}, { KUBECONFIG: join(dir, "config") })).toEqual({
      server: "https://a.example:6443",
      token: "t",
      userAgent: "kana",
    });
  });

  it("explains what is missing, with exit code 2", async () => {
    const missing = await failure(resolveClientConfig({ kubeconfig: join(dir, "nope") }, {}));
    expect(missing.exitCode).toBe(2);
    expect(missing.message).toMatch(/^error loading kubeconfig .*nope: ENOENT/);
    expect((await failure(resolveClientConfig({}, { HOME: join(dir, "nobody") }))).message).toBe(
      `no kubeconfig found (${join(dir, "nobody", ".kube", "config")}); pass --kubeconfig or set KUBECONFIG`,
    );
    expect((await failure(resolveClientConfig({ kubeconfig: join(dir, "config"), context: "zzz" }, {}))).message).toBe(
      `context "zzz" does not exist in ${join(dir, "config")}`,
    );
  });
});
