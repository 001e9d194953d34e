import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { ClientConfig } from "./kubeconfig.js";

/** Where the kubelet mounts a pod's service account token, CA bundle and namespace. */
export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/** Whether this process runs in a pod: the kubelet sets both variables in every container (client-go checks the same). */
export function isInCluster(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.KUBERNETES_SERVICE_HOST) && Boolean(env.KUBERNETES_SERVICE_PORT);
}

async function optionalFile(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * The connection a pod has to its own cluster, as client-go's `rest.InClusterConfig` builds it:
 * `https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT` with the service account's token and
 * CA bundle, and its namespace as the default one. The token is read once.
 */
export async function inClusterConfig(env: NodeJS.ProcessEnv = process.env, dir = SERVICE_ACCOUNT_DIR): Promise<ClientConfig> {
  const host = env.KUBERNETES_SERVICE_HOST ?? "";
  const port = env.KUBERNETES_SERVICE_PORT ?? "";
  if (host === "" || port === "") {
    throw new Error("unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined");
  }
  const token = (await optionalFile(join(dir, "token")))?.trim();
  if (token === undefined || token === "")
    throw new Error(`unable to load in-cluster configuration: no service account token in ${join(dir, "token")}`);
  const ca = await optionalFile(join(dir, "ca.crt"));
  const namespace = (await optionalFile(join(dir, "namespace")))?.trim();
  return {
    server: `https://${host.includes(":") ? `[${host}]` : host}:${port}`,
    token,
    ...(ca !== undefined ? { ca } : {}),
    ...(namespace ? { namespace } : {}),
  };
}
