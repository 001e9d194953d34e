import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isNotFound, KubeClient } from "@kubekit/generic-controlplane/controllers";
import { startSimCluster, type SimCluster } from "@kubekit/sim-cluster";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NAMESPACES } from "../framework/resources.js";

const CLI = join(import.meta.dirname, "..", "..", "dist", "cli.js");

async function until(what: string, probe: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// The built binary as a user runs it, interrupted with SIGINT in the middle of a test.
describe("ccm-e2e run interrupted", () => {
  let cluster: SimCluster;
  let dir: string;
  let client: KubeClient;

  beforeAll(async () => {
    cluster = await startSimCluster({ nodes: 1 });
    dir = await mkdtemp(join(tmpdir(), "ccm-e2e-sigint-"));
    await cluster.writeKubeconfig(join(dir, "kubeconfig"));
    client = new KubeClient({ server: cluster.url });
  });
  afterAll(async () => {
    client?.close();
    await cluster?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("cleans up the running test's namespace, tears the driver down, reports the interruption and exits 1", async () => {
    const started = join(dir, "started");
    const tornDown = join(dir, "torn-down");
    const driver = join(dir, "driver.mjs");
    await writeFile(
      driver,
      `import { writeFileSync } from "node:fs";
export default {
  name: "hangs",
  capabilities: {},
  async beforeEach(test) { writeFileSync(${JSON.stringify(started)}, test.namespace); await new Promise(() => {}); },
  async teardown() { writeFileSync(${JSON.stringify(tornDown)}, "yes"); },
};
`,
    );
    const child = spawn(
      process.execPath,
      [CLI, "run", "--kubeconfig", join(dir, "kubeconfig"), "--driver", driver, "--focus", "collection of services", "--junit-dir", dir],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    try {
      await until("the test to start", () => existsSync(started));
      const namespace = await readFile(started, "utf8");
      child.kill("SIGINT");
      expect(await exited).toBe(1);
      expect(await readFile(tornDown, "utf8")).toBe("yes");
      expect(out).toContain("INTERRUPTED [sig-network] Services should delete a collection of services [Conformance]");
      const gone = await client.get(NAMESPACES, undefined, namespace).then(
        () => false,
        (error: unknown) => isNotFound(error),
      );
      expect(gone).toBe(true);
      expect(await readFile(join(dir, "junit_01.xml"), "utf8")).toContain('<error type="interrupted">');
    } finally {
      child.kill("SIGKILL");
    }
  }, 60_000);
});
