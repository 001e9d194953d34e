import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

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
function run(args: readonly string[], options: { closeStdoutAfterFirstChunk?: boolean } = {}): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, KUBECONFIG: "" } });
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
    const exit = await run(["run", "--driver", join(packageDir, "..", "..", "examples", "fake-cloud-ccm", "driver.yaml"), "--kubeconfig", "/nonexistent/kubeconfig"]);
    expect(exit.code).toBe(2);
    expect(exit.stderr).toMatch(/^ccm-e2e: error loading kubeconfig \/nonexistent\/kubeconfig: [^\n]*\n$/);
  });

  it("keeps the API server out of the root entry: it imports only the client entry of generic-controlplane", async () => {
    for (const file of ["index.js", "index.cjs", "cli.js"]) {
      const text = await readFile(join(packageDir, "dist", file), "utf8");
      const specifiers = [...text.matchAll(/(?:from\s*|require\(|import\()\s*["'](@kubekit\/[^"']+)["']/g)].map((m) => m[1]);
      expect(specifiers.length, file).toBeGreaterThan(0);
      expect(new Set(specifiers), file).toEqual(new Set(["@kubekit/generic-controlplane/client"]));
    }
  });
});
