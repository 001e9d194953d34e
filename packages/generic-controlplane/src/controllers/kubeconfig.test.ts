import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
        { name: "c2", cluster: { server: "https://two.example", "certificate-authority-data": Buffer.from("INLINE CA").toString("base64") } },
      ],
      users: [
        { name: "u1", user: { tokenFile: "token" } },
        { name: "u2", user: { "client-certificate-data": Buffer.from("CERT").toString("base64"), "client-key-data": Buffer.from("KEY").toString("base64") } },
      ],
      contexts: [
        { name: "one", context: { cluster: "c1", user: "u1" } },
        { name: "two", context: { cluster: "c2", user: "u2", namespace: "ns2" } },
      ],
    });
    const path = join(dir, "config");
    writeFileSync(path, text);
    expect(await loadKubeconfig(path)).toEqual({ server: "https://one.example:6443", ca: "CA PEM", token: "file-token" });
    expect(await loadKubeconfig(path, "two")).toEqual({ server: "https://two.example", ca: "INLINE CA", cert: "CERT", key: "KEY", namespace: "ns2" });
  });

  it("names what is missing or unsupported", async () => {
    await expect(configFromKubeconfig("clusters: []")).rejects.toThrow("kubeconfig has no current-context");
    await expect(configFromKubeconfig(stringify({ "current-context": "x", contexts: [] }))).rejects.toThrow('kubeconfig has no context "x"');
    const exec = stringify({
      "current-context": "x",
      contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
      clusters: [{ name: "c", cluster: { server: "https://c" } }],
      users: [{ name: "u", user: { exec: { command: "aws" } } }],
    });
    await expect(configFromKubeconfig(exec)).rejects.toThrow('kubeconfig context "x": exec and auth-provider credentials are not supported');
  });
});
