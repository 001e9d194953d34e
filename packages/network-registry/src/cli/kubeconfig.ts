import { loadKubeconfig, type ClientConfig } from "@kubekit/generic-controlplane/controllers";
import { CliError, EXIT_USAGE } from "./cli-error.js";

/** Where the connection comes from: the `--kubeconfig` and `--context` flags, and the environment. */
export interface KubeconfigFlags {
  kubeconfig?: string;
  context?: string;
}

/**
 * The connection kubectl would use (`--kubeconfig`, else `KUBECONFIG` merged, else
 * `~/.kube/config`; `--context`, else the current one); a kubeconfig that cannot be used is a
 * usage error.
 */
export async function resolveClientConfig(flags: KubeconfigFlags, env: NodeJS.ProcessEnv = process.env): Promise<ClientConfig> {
  try {
    return { ...(await loadKubeconfig(flags.kubeconfig, flags.context, env)), userAgent: "kana" };
  } catch (error) {
    throw new CliError((error as Error).message, EXIT_USAGE);
  }
}
