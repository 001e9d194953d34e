import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { jsonLineLogger } from "@kubekit/generic-controlplane";
import { configFromKubeconfig } from "@kubekit/generic-controlplane/controllers";
import { runArbiter, type Arbiter, type ArbiterLeaderElection } from "./arbiter.js";

export interface ArbiterMainOptions {
  /** Path of the kubeconfig (default `$KUBECONFIG`, else `~/.kube/config`). */
  kubeconfig?: string;
  context?: string;
  metricsPort?: number;
  metricsHost?: string;
  leaderElection?: ArbiterLeaderElection | false;
}

/**
 * `kana arbiter`: reads the kubeconfig, runs the arbiter with JSON-line logs on stderr, and stops
 * it (releasing the Lease) on SIGTERM or SIGINT. Resolves with the running arbiter.
 */
export async function arbiterMain(options: ArbiterMainOptions = {}): Promise<Arbiter> {
  const path = options.kubeconfig ?? process.env["KUBECONFIG"]?.split(":")[0] ?? join(homedir(), ".kube", "config");
  const config = await configFromKubeconfig(await readFile(path, "utf8"), { baseDir: dirname(path), ...(options.context !== undefined ? { context: options.context } : {}) });
  const arbiter = await runArbiter({
    config,
    logger: jsonLineLogger(process.stderr),
    ...(options.metricsPort !== undefined ? { metricsPort: options.metricsPort } : {}),
    ...(options.metricsHost !== undefined ? { metricsHost: options.metricsHost } : {}),
    ...(options.leaderElection !== undefined ? { leaderElection: options.leaderElection } : {}),
  });
  const shutdown = () => void arbiter.stop().then(() => process.exit(0));
  process.once("SIGTERM", shutdown);
  process.once("SIGINT", shutdown);
  return arbiter;
}
