import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { connect as netConnect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { startTestPlane, type TestPlane } from "../server/test-support.js";
import { KubeClient, isApiError } from "./client.js";
import { loadKubeconfig } from "./kubeconfig.js";

const NAMESPACES = { group: "", version: "v1", resource: "namespaces", namespaced: false };

// A credential plugin as cloud CLIs ship them (aws eks get-token, gke-gcloud-auth-plugin,
// kubelogin): a program printing an ExecCredential. It counts its runs and keeps what it was told.
const PLUGIN = `#!/bin/sh
echo run >> "$RUNS_FILE"
printf '%s' "$KUBERNETES_EXEC_INFO" > "$INFO_FILE"
if [ -n "$FAIL" ]; then echo "login required" >&2; exit 3; fi
expiry=""
if [ -n "$EXPIRES_IN" ]; then expiry=",\\"expirationTimestamp\\":\\"$(date -u -d "+$EXPIRES_IN seconds" +%Y-%m-%dT%H:%M:%SZ)\\""; fi
token="$TOKEN"
if [ -f "$TOKEN_FILE" ]; then token="$(cat "$TOKEN_FILE")"; fi
printf '{"apiVersion":"%s","kind":"ExecCredential","status":{"token":"%s"%s}}\\n' "$ANSWER_VERSION" "$token" "$expiry"
`;

let plane: TestPlane;
let dir: string;

beforeAll(async () => {
  plane = await startTestPlane({
    authentication: {
      tokenFile: "plugin-token,alice,uid-alice,system:masters\nsecond-token,alice,uid-alice,system:masters\n",
      anonymous: false,
    },
  });
  dir = mkdtempSync(join(tmpdir(), "exec-credential-"));
  writeFileSync(join(dir, "plugin.sh"), PLUGIN);
  chmodSync(join(dir, "plugin.sh"), 0o755);
});
afterAll(async () => {
  await plane?.close();
  rmSync(dir, { recursive: true, force: true });
});

let counter = 0;
/** A kubeconfig whose user runs the plugin (by a path relative to the kubeconfig, as kubectl resolves it). */
function kubeconfigWith(
  exec: Record<string, unknown>,
  env: Record<string, string>,
  cluster: Record<string, unknown> = {},
): { path: string; runs: () => number; info: () => unknown } {
  const id = ++counter;
  const runsFile = join(dir, `runs-${id}`);
  const infoFile = join(dir, `info-${id}`);
  const pluginEnv = { RUNS_FILE: runsFile, INFO_FILE: infoFile, ANSWER_VERSION: String(exec.apiVersion), TOKEN: "plugin-token", ...env };
  const path = join(dir, `config-${id}`);
  writeFileSync(
    path,
    stringify({
      apiVersion: "v1",
      kind: "Config",
      "current-context": "cloud",
      clusters: [{ name: "cloud", cluster: { server: plane.url, ...cluster } }],
      users: [
        {
          name: "cloud-user",
          user: { exec: { command: "./plugin.sh", env: Object.entries(pluginEnv).map(([name, value]) => ({ name, value })), ...exec } },
        },
      ],
      contexts: [{ name: "cloud", context: { cluster: "cloud", user: "cloud-user" } }],
    }),
  );
  return {
    path,
    runs: () => {
      try {
        return readFileSync(runsFile, "utf8").split("\n").filter(Boolean).length;
      } catch {
        return 0;
      }
    },
    info: () => JSON.parse(readFileSync(infoFile, "utf8")) as unknown,
  };
}

describe("kubeconfig exec credential plugins", () => {
  for (const apiVersion of ["client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1"]) {
    it(`authenticates with the token a ${apiVersion} plugin prints, running it once while it has no expiry`, async () => {
      const kubeconfig = kubeconfigWith({ apiVersion, interactiveMode: "Never", provideClusterInfo: true }, {});
      const client = new KubeClient(await loadKubeconfig(kubeconfig.path));
      try {
        await Promise.all([client.list(NAMESPACES), client.list(NAMESPACES)]);
        await client.get(NAMESPACES, undefined, "default");
        expect(kubeconfig.runs()).toBe(1);
        expect(kubeconfig.info()).toEqual({
          kind: "ExecCredential",
          apiVersion,
          spec: { interactive: false, cluster: { server: plane.url } },
        });
      } finally {
        client.close();
      }
    });
  }

  it("runs the plugin again once its credential expires", async () => {
    const kubeconfig = kubeconfigWith({ apiVersion: "client.authentication.k8s.io/v1beta1" }, { EXPIRES_IN: "1" });
    const client = new KubeClient(await loadKubeconfig(kubeconfig.path));
    try {
      await client.get(NAMESPACES, undefined, "default");
      await client.get(NAMESPACES, undefined, "default");
      expect(kubeconfig.runs()).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 2100));
      await client.get(NAMESPACES, undefined, "default");
      expect(kubeconfig.runs()).toBe(2);
    } finally {
      client.close();
    }
  });

  it("runs the plugin again after the server refuses its token (401), as client-go does", async () => {
    const tokenFile = join(dir, "rotating-token");
    writeFileSync(tokenFile, "revoked-token");
    const kubeconfig = kubeconfigWith(
      { apiVersion: "client.authentication.k8s.io/v1", interactiveMode: "IfAvailable" },
      { TOKEN_FILE: tokenFile },
    );
    const client = new KubeClient(await loadKubeconfig(kubeconfig.path));
    try {
      const refused = await client.get(NAMESPACES, undefined, "default").catch((error: unknown) => error);
      expect(isApiError(refused) && refused.code).toBe(401);
      writeFileSync(tokenFile, "second-token");
      await client.get(NAMESPACES, undefined, "default");
      expect(kubeconfig.runs()).toBe(2);
    } finally {
      client.close();
    }
  });

  it("fails the request with the plugin's exit code, and with client-go's messages for bad answers and stanzas", async () => {
    const failing = new KubeClient(
      await loadKubeconfig(kubeconfigWith({ apiVersion: "client.authentication.k8s.io/v1beta1" }, { FAIL: "1" }).path),
    );
    await expect(failing.get(NAMESPACES, undefined, "default")).rejects.toThrow(
      /^exec: executable \/.*\/plugin\.sh failed with exit code 3$/,
    );
    const wrongVersion = new KubeClient(
      await loadKubeconfig(
        kubeconfigWith({ apiVersion: "client.authentication.k8s.io/v1beta1" }, { ANSWER_VERSION: "client.authentication.k8s.io/v1" }).path,
      ),
    );
    await expect(wrongVersion.get(NAMESPACES, undefined, "default")).rejects.toThrow(
      "exec plugin is configured to use API version client.authentication.k8s.io/v1beta1, plugin returned version client.authentication.k8s.io/v1",
    );
    const missing = new KubeClient(
      await loadKubeconfig(
        kubeconfigWith(
          {
            command: "no-such-credential-plugin",
            apiVersion: "client.authentication.k8s.io/v1beta1",
            installHint: "Install it from example.com",
          },
          {},
        ).path,
      ),
    );
    await expect(missing.get(NAMESPACES, undefined, "default")).rejects.toThrow(
      "exec: executable no-such-credential-plugin not found\n\nInstall it from example.com",
    );
    await expect(loadKubeconfig(kubeconfigWith({ apiVersion: "client.authentication.k8s.io/v1" }, {}).path)).rejects.toThrow(
      "interactiveMode must be specified for cloud-user to use exec authentication plugin",
    );
    await expect(loadKubeconfig(kubeconfigWith({ apiVersion: "client.authentication.k8s.io/v1alpha1" }, {}).path)).rejects.toThrow(
      'exec plugin: invalid apiVersion "client.authentication.k8s.io/v1alpha1"',
    );
    await expect(
      loadKubeconfig(kubeconfigWith({ apiVersion: "client.authentication.k8s.io/v1", interactiveMode: "Always" }, {}).path).then((c) =>
        new KubeClient(c).get(NAMESPACES, undefined, "default"),
      ),
    ).rejects.toThrow("exec plugin cannot support interactive mode: standard input is not a terminal");
  });
});

describe("kubeconfig proxy-url", () => {
  let proxy: Server;
  const tunnels: string[] = [];

  beforeAll(async () => {
    // A forward proxy that only tunnels (CONNECT), as corporate proxies in front of API servers do.
    proxy = createServer((_req, res) => res.writeHead(405).end());
    proxy.on("connect", (req, client, head) => {
      tunnels.push(`${req.url} ${req.headers["proxy-authorization"] ?? ""}`);
      const [host, port] = (req.url ?? "").split(":");
      const upstream = netConnect(Number(port), host, () => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on("error", () => client.destroy());
      client.on("error", () => upstream.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    proxy.closeAllConnections();
    await new Promise((resolve) => proxy.close(resolve));
  });

  it("reaches the server through the proxy, with the proxy's credentials from its URL", async () => {
    const address = proxy.address() as { port: number };
    const kubeconfig = kubeconfigWith(
      { apiVersion: "client.authentication.k8s.io/v1beta1" },
      {},
      { "proxy-url": `http://user:secret@127.0.0.1:${address.port}` },
    );
    const client = new KubeClient(await loadKubeconfig(kubeconfig.path));
    try {
      await client.get(NAMESPACES, undefined, "default");
      expect(tunnels).toEqual([`${new URL(plane.url).host} Basic ${Buffer.from("user:secret").toString("base64")}`]);
    } finally {
      client.close();
    }
    await expect(
      loadKubeconfig(kubeconfigWith({ apiVersion: "client.authentication.k8s.io/v1beta1" }, {}, { "proxy-url": "ftp://127.0.0.1:1" }).path),
    ).rejects.toThrow('proxy-url scheme "ftp" is not supported (http and https are)');
  });
});
