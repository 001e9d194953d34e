import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { kubeconfigFor } from "../server/kubeconfig.js";
import { configFromKubeconfig, loadKubeconfig } from "./kubeconfig.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("configFromKubeconfig", () => {
  it("reads the server and namespace of the kubeconfig a control plane writes", async () => {
    const config = await configFromKubeconfig(kubeconfigFor("http://127.0.0.1:1234", "plane", "team-a"));
    expect(config).toEqual({ server: "http://127.0.0.1:1234", insecureSkipTLSVerify: true, namespace: "team-a" });
  });

  it("resolves the named context's cluster and user: inline data, files relative to the kubeconfig, tokens", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kubeconfig-"));
    dirs.push(dir);
    writeFileSync(join(dir, "ca.pem"), "CA PEM");
    writeFileSync(join(dir, "token"), "file-token\n");
    const text = stringify({
      "current-context": "one",
      clusters: [
        { name: "c1", cluster: { server: "https://one.example:6443/", "certificate-authority": "ca.pem" } },
        {
          name: "c2",
          cluster: { server: "https://two.example", "certificate-authority-data": Buffer.from("INLINE CA").toString("base64") },
        },
      ],
      users: [
        { name: "u1", user: { tokenFile: "token" } },
        {
          name: "u2",
          user: {
            "client-certificate-data": Buffer.from("CERT").toString("base64"),
            "client-key-data": Buffer.from("KEY").toString("base64"),
          },
        },
      ],
      contexts: [
        { name: "one", context: { cluster: "c1", user: "u1" } },
        { name: "two", context: { cluster: "c2", user: "u2", namespace: "ns2" } },
      ],
    });
    const path = join(dir, "config");
    writeFileSync(path, text);
    expect(await loadKubeconfig(path)).toEqual({ server: "https://one.example:6443", ca: "CA PEM", token: "file-token" });
    expect(await loadKubeconfig(path, "two")).toEqual({
      server: "https://two.example",
      ca: "INLINE CA",
      cert: "CERT",
      key: "KEY",
      namespace: "ns2",
    });
  });

  it("names what is missing or unsupported", async () => {
    await expect(configFromKubeconfig("clusters: []")).rejects.toThrow("kubeconfig has no current-context");
    await expect(configFromKubeconfig(stringify({ "current-context": "x", contexts: [] }))).rejects.toThrow(
      'kubeconfig has no context "x"',
    );
    const withUser = (user: Record<string, unknown>) =>
      stringify({
        "current-context": "x",
        contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
        clusters: [{ name: "c", cluster: { server: "https://c" } }],
        users: [{ name: "u", user }],
      });
    await expect(configFromKubeconfig(withUser({ exec: { command: "aws" } }))).rejects.toThrow(
      "apiVersion must be specified for u to use exec authentication plugin",
    );
    await expect(configFromKubeconfig(withUser({ exec: { apiVersion: "client.authentication.k8s.io/v1beta1" } }))).rejects.toThrow(
      "command must be specified for u to use exec authentication plugin",
    );
    await expect(configFromKubeconfig(withUser({ "auth-provider": { name: "oidc" } }))).rejects.toThrow(
      'kubeconfig context "x": auth-provider credentials are not supported',
    );
  });

  it("describes an exec plugin as kubectl runs it: PATH lookup for a bare name, the kubeconfig's directory for a path", async () => {
    const text = (command: string) =>
      stringify({
        "current-context": "x",
        contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
        clusters: [{ name: "c", cluster: { server: "https://c", "proxy-url": "http://proxy:3128" } }],
        users: [
          {
            name: "u",
            user: {
              exec: {
                command,
                args: ["eks", "get-token"],
                apiVersion: "client.authentication.k8s.io/v1beta1",
                env: [{ name: "AWS_PROFILE", value: "ci" }],
              },
            },
          },
        ],
      });
    expect(await configFromKubeconfig(text("aws"), { baseDir: "/etc/kube" })).toEqual({
      server: "https://c",
      proxyUrl: "http://proxy:3128",
      exec: {
        command: "aws",
        args: ["eks", "get-token"],
        env: [{ name: "AWS_PROFILE", value: "ci" }],
        apiVersion: "client.authentication.k8s.io/v1beta1",
        interactiveMode: "IfAvailable",
      },
    });
    expect((await configFromKubeconfig(text("./bin/token"), { baseDir: "/etc/kube" })).exec?.command).toBe("/etc/kube/bin/token");
  });
});

describe("loadKubeconfig", () => {
  /** Two kubeconfigs in sibling folders, each with a CA file beside it, naming some entries alike. */
  function twoKubeconfigs(): { dir: string; a: string; b: string } {
    const dir = mkdtempSync(join(tmpdir(), "kubeconfig-merge-"));
    dirs.push(dir);
    mkdirSync(join(dir, "a"));
    mkdirSync(join(dir, "b"));
    writeFileSync(join(dir, "a", "ca.crt"), "CA FROM A");
    writeFileSync(join(dir, "b", "ca.crt"), "CA FROM B");
    const a = join(dir, "a", "config");
    const b = join(dir, "b", "config");
    writeFileSync(
      a,
      stringify({
        "current-context": "one",
        clusters: [{ name: "shared", cluster: { server: "https://a.example:6443", "certificate-authority": "ca.crt" } }],
        users: [{ name: "shared", user: { token: "token-a" } }],
        contexts: [{ name: "one", context: { cluster: "shared", user: "shared" } }],
      }),
    );
    writeFileSync(
      b,
      stringify({
        "current-context": "two",
        clusters: [
          { name: "shared", cluster: { server: "https://b.example:6443" } },
          { name: "other", cluster: { server: "https://other.example:6443", "certificate-authority": "ca.crt" } },
        ],
        users: [{ name: "shared", user: { token: "token-b" } }],
        contexts: [
          { name: "one", context: { cluster: "other", user: "shared" } },
          { name: "two", context: { cluster: "other", user: "shared", namespace: "kube-system" } },
        ],
      }),
    );
    return { dir, a, b };
  }

  it("merges the KUBECONFIG list as kubectl does: the first file to name an entry or set current-context wins", async () => {
    const { dir, a, b } = twoKubeconfigs();
    const KUBECONFIG = [join(dir, "missing"), a, b].join(delimiter);
    expect(await loadKubeconfig(undefined, undefined, { KUBECONFIG })).toEqual({
      server: "https://a.example:6443",
      token: "token-a",
      ca: "CA FROM A",
    });
    // Context "two" and its cluster "other" exist only in b (paths relative to b), but the user "shared" is a's.
    expect(await loadKubeconfig(undefined, "two", { KUBECONFIG })).toEqual({
      server: "https://other.example:6443",
      token: "token-a",
      ca: "CA FROM B",
      namespace: "kube-system",
    });
  });

  it("reads only the given file when there is one, and falls back to ~/.kube/config", async () => {
    const { dir, a, b } = twoKubeconfigs();
    expect(await loadKubeconfig(b, "one", { KUBECONFIG: a })).toEqual({
      server: "https://other.example:6443",
      token: "token-b",
      ca: "CA FROM B",
    });
    mkdirSync(join(dir, "home", ".kube"), { recursive: true });
    writeFileSync(
      join(dir, "home", ".kube", "config"),
      "current-context: c\nclusters: [{ name: c, cluster: { server: 'http://127.0.0.1:1' } }]\ncontexts: [{ name: c, context: { cluster: c } }]\n",
    );
    expect((await loadKubeconfig(undefined, undefined, { HOME: join(dir, "home") })).server).toBe("http://127.0.0.1:1");
  });

  it("names the file and what is wrong with it", async () => {
    const { dir, a } = twoKubeconfigs();
    await expect(loadKubeconfig(join(dir, "nope"), undefined, {})).rejects.toThrow(
      new RegExp(`^error loading kubeconfig ${join(dir, "nope")}: ENOENT`),
    );
    await expect(loadKubeconfig(undefined, undefined, { HOME: join(dir, "nobody") })).rejects.toThrow(
      `no kubeconfig found (${join(dir, "nobody", ".kube", "config")}); pass --kubeconfig or set KUBECONFIG`,
    );
    await expect(loadKubeconfig(a, "zzz", {})).rejects.toThrow(`context "zzz" does not exist in ${a}`);
    writeFileSync(join(dir, "list"), "- 1\n");
    await expect(loadKubeconfig(join(dir, "list"), undefined, {})).rejects.toThrow(
      `error loading kubeconfig ${join(dir, "list")}: not a kubeconfig`,
    );
  });
});
