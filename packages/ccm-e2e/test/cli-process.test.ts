import { spawn } from "node:child_process";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, request as httpRequest, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSimCluster, type SimCluster } from "@kubekit/sim-cluster";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";

// The built `ccm-e2e` binary as a shell runs it: a real process with real pipes.
const packageDir = join(import.meta.dirname, "..");
const cli = join(packageDir, "dist", "cli.js");

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the binary; with `closeStdoutAfterFirstChunk` the reader goes away like `| head -1` does. */
function run(args: readonly string[], options: { closeStdoutAfterFirstChunk?: boolean; env?: NodeJS.ProcessEnv } = {}): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, KUBECONFIG: "", ...options.env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      stdout += chunk;
      if (options.closeStdoutAfterFirstChunk) child.stdout.destroy();
    });
    child.stderr.on("data", (chunk: string) => (stderr += chunk));
    child.once("error", reject);
    child.once("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

describe("the ccm-e2e binary", () => {
  it("exits quietly when its reader closes the pipe (`ccm-e2e list | head -1`)", async () => {
    const runs = await Promise.all(Array.from({ length: 6 }, () => run(["list"], { closeStdoutAfterFirstChunk: true })));
    for (const exit of runs) {
      expect(exit.stderr).toBe("");
      expect(exit.signal).toBeNull();
      expect(exit.code).toBe(0);
    }
  });

  it("reports a missing YAML driver file in one line and exits 2", async () => {
    const exit = await run(["run", "--driver", "/nonexistent/driver.yaml", "--dry-run"]);
    expect(exit.code).toBe(2);
    expect(exit.stderr).toBe("ccm-e2e: /nonexistent/driver.yaml: cannot read the driver: no such file\n");
  });

  it("reports a missing module driver file in one line and exits 2", async () => {
    const exit = await run(["run", "--driver", "/nonexistent/driver.mjs", "--dry-run"]);
    expect(exit.code).toBe(2);
    expect(exit.stderr).toBe("ccm-e2e: /nonexistent/driver.mjs: cannot read the driver: no such file\n");
  });

  it("reports a missing kubeconfig in one line and exits 2", async () => {
    const exit = await run([
      "run",
      "--driver",
      join(packageDir, "..", "..", "examples", "fake-cloud-ccm", "driver.yaml"),
      "--kubeconfig",
      "/nonexistent/kubeconfig",
    ]);
    expect(exit.code).toBe(2);
    expect(exit.stderr).toMatch(/^ccm-e2e: error loading kubeconfig \/nonexistent\/kubeconfig: [^\n]*\n$/);
  });

  it("accepts the CI example's driver and label filters (examples/ccm-ci)", async () => {
    const example = join(packageDir, "..", "..", "examples", "ccm-ci");
    const workflow = await readFile(join(example, "ccm-e2e.yaml"), "utf8");
    const filters = [...workflow.matchAll(/^\s+labels: "([^"]+)"$/gm)].map((m) => m[1]!);
    expect(filters.length).toBe(3);
    for (const filter of filters) {
      const exit = await run(["run", "--driver", join(example, "driver.yaml"), "--label-filter", filter, "--dry-run", "-o", "json"]);
      expect(exit.code, exit.stderr).toBe(0);
      expect((JSON.parse(exit.stdout) as { tests: unknown[] }).tests.length, filter).toBeGreaterThan(0);
    }
  });

  it("keeps the API server out: of the project's packages, the root entry and the CLI import only @kubekit/client and @kubekit/apimachinery", async () => {
    for (const file of ["index.js", "index.cjs", "cli.js"]) {
      const text = await readFile(join(packageDir, "dist", file), "utf8");
      const specifiers = [...text.matchAll(/(?:from\s*|require\(|import\()\s*["'](@kubekit\/[^"']+)["']/g)].map((m) => m[1]!);
      expect(specifiers.length, file).toBeGreaterThan(0);
      const packages = new Set(specifiers.map((specifier) => specifier.split("/").slice(0, 2).join("/")));
      expect(packages, file).toEqual(new Set(["@kubekit/client", "@kubekit/apimachinery"]));
    }
  });
});

// A managed cluster's front door: only the token the cloud's credential plugin hands out gets in.
const PLUGIN_TOKEN = "token-from-the-cloud-cli";
const PLUGIN = `#!/bin/sh
echo run >> "$RUNS_FILE"
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s","expirationTimestamp":"2999-01-01T00:00:00Z"}}\\n' "$PLUGIN_TOKEN"
`;

describe("the ccm-e2e binary against a cluster behind an exec credential plugin", () => {
  let cluster: SimCluster;
  let front: Server;
  let dir: string;
  const refused: string[] = [];

  beforeAll(async () => {
    cluster = await startSimCluster({ nodes: 1 });
    const upstream = new URL(cluster.url);
    front = createServer((req, res) => {
      if (req.headers.authorization !== `Bearer ${PLUGIN_TOKEN}`) {
        refused.push(`${req.method} ${req.url}`);
        res.writeHead(401, { "Content-Type": "application/json" }).end(
          JSON.stringify({
            kind: "Status",
            apiVersion: "v1",
            status: "Failure",
            reason: "Unauthorized",
            code: 401,
            message: "Unauthorized",
          }),
        );
        return;
      }
      const forwarded = httpRequest(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forwarded.on("error", () => res.destroy());
      req.pipe(forwarded);
    });
    await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", resolve));
    dir = await mkdtemp(join(tmpdir(), "ccm-e2e-exec-"));
    await writeFile(join(dir, "token-plugin.sh"), PLUGIN);
    await chmod(join(dir, "token-plugin.sh"), 0o755);
  });
  afterAll(async () => {
    front?.closeAllConnections();
    await new Promise((resolve) => front?.close(resolve));
    await cluster?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("runs a test with the token the plugin prints, running the plugin once", async () => {
    const kubeconfig = join(dir, "kubeconfig");
    const runsFile = join(dir, "runs");
    await writeFile(
      kubeconfig,
      stringify({
        apiVersion: "v1",
        kind: "Config",
        "current-context": "managed",
        clusters: [{ name: "managed", cluster: { server: `http://127.0.0.1:${(front.address() as { port: number }).port}` } }],
        users: [
          {
            name: "ci",
            user: {
              exec: {
                apiVersion: "client.authentication.k8s.io/v1",
                command: "./token-plugin.sh",
                interactiveMode: "Never",
                env: [
                  { name: "PLUGIN_TOKEN", value: PLUGIN_TOKEN },
                  { name: "RUNS_FILE", value: runsFile },
                ],
              },
            },
          },
        ],
        contexts: [{ name: "managed", context: { cluster: "managed", user: "ci" } }],
      }),
    );
    await writeFile(join(dir, "driver.yaml"), "name: no-cloud\ncapabilities: {}\n");
    const exit = await run(["run", "--driver", join(dir, "driver.yaml"), "--focus", "should delete a collection of services"], {
      env: { KUBECONFIG: kubeconfig },
    });
    expect(exit.stderr).toBe("");
    expect(exit.stdout).toContain("PASS [sig-network] Services should delete a collection of services [Conformance]");
    expect(exit.code).toBe(0);
    expect(refused).toEqual([]);
    expect((await readFile(runsFile, "utf8")).trim().split("\n")).toEqual(["run"]);

    // KUBECONFIG as a list, merged as kubectl merges it: the first file only chooses the context.
    const chooser = join(dir, "chooser");
    await writeFile(chooser, stringify({ apiVersion: "v1", kind: "Config", "current-context": "managed" }));
    const merged = await run(["run", "--driver", join(dir, "driver.yaml"), "--focus", "should delete a collection of services"], {
      env: { KUBECONFIG: `${chooser}:${kubeconfig}` },
    });
    expect(merged.stderr).toBe("");
    expect(merged.code).toBe(0);
  }, 60_000);
});
