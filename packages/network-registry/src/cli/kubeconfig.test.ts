import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CliError } from "./cli-error.js";
import { resolveClientConfig } from "./kubeconfig.js";

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "kana-kubeconfig-"));
  await mkdir(join(dir, "a"));
  await mkdir(join(dir, "b"));
  await writeFile(join(dir, "a", "ca.crt"), "CA FROM A");
  await writeFile(join(dir, "b", "ca.crt"), "CA FROM B");
  await writeFile(join(dir, "a", "config"), `
current-context: one
clusters:
- name: shared
  cluster: { server: "https://a.example:6443", certificate-authority: ca.crt }
users:
- name: shared
  user: { token: token-a }
contexts:
- name: one
  context: { cluster: shared, user: shared }
`);
  await writeFile(join(dir, "b", "config"), `
current-context: two
clusters:
- name: shared
  cluster: { server: "https://b.example:6443" }
- name: other
  cluster: { server: "https://other.example:6443", certificate-authority: ca.crt }
users:
- name: shared
  user: { token: token-b }
contexts:
- name: one
  context: { cluster: other, user: shared }
- name: two
  context: { cluster: other, user: shared, namespace: kube-system }
`);
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
  it("merges the KUBECONFIG list as kubectl does: the first file to name an entry or set current-context wins", async () => {
    const KUBECONFIG = [join(dir, "missing"), join(dir, "a", "config"), join(dir, "b", "config")].join(delimiter);
    const config = await resolveClientConfig({}, { KUBECONFIG });
    expect(config).toMatchObject({ server: "https://a.example:6443", token: "token-a", ca: "CA FROM A" });
    // Context "two" exists only in b; its cluster "other" too, but the user "shared" is a's.
    const two = await resolveClientConfig({ context: "two" }, { KUBECONFIG });
    expect(two).toMatchObject({ server: "https://other.example:6443", token: "token-a", ca: "CA FROM B", namespace: "kube-system" });
  });

  it("reads only --kubeconfig when given, relative paths against its directory", async () => {
    const config = await resolveClientConfig({ kubeconfig: join(dir, "b", "config"), context: "one" }, { KUBECONFIG: join(dir, "a", "config") });
    expect(config).toMatchObject({ server: "https://other.example:6443", token: "token-b", ca: "CA FROM B" });
  });

  it("falls back to ~/.kube/config", async () => {
    await mkdir(join(dir, "home", ".kube"), { recursive: true });
    await writeFile(join(dir, "home", ".kube", "config"), "current-context: c\nclusters: [{ name: c, cluster: { server: 'http://127.0.0.1:1' } }]\ncontexts: [{ name: c, context: { cluster: c } }]\n");
    expect((await resolveClientConfig({}, { HOME: join(dir, "home") })).server).toBe("http://127.0.0.1:1");
  });

  it("explains what is missing, with exit code 2", async () => {
    const missing = await failure(resolveClientConfig({ kubeconfig: join(dir, "nope") }, {}));
    expect(missing.exitCode).toBe(2);
    expect(missing.message).toMatch(/^error loading kubeconfig .*nope: ENOENT/);
    expect((await failure(resolveClientConfig({}, { HOME: join(dir, "nobody") }))).message).toBe(`no kubeconfig found (${join(dir, "nobody", ".kube", "config")}); pass --kubeconfig or set KUBECONFIG`);
    expect((await failure(resolveClientConfig({ kubeconfig: join(dir, "a", "config"), context: "zzz" }, {}))).message).toBe(`context "zzz" does not exist in ${join(dir, "a", "config")}`);
  });
});
