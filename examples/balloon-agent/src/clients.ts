import { readFile } from "node:fs/promises";
import { KubeClient, loadKubeconfig, type ClientConfig } from "@kubekit/client";

const SERVICE_ACCOUNT = "/var/run/secrets/kubernetes.io/serviceaccount";

/**
 * The agent's one client (informers, leader election, events and `resizeNode`): a kubeconfig when
 * given or in `$KUBECONFIG`; else the pod's service account when running in a cluster; else `~/.kube/config`.
 */
export async function loadClient(kubeconfig: string | undefined, context: string | undefined): Promise<{ client: KubeClient; server: string }> {
  const path = kubeconfig ?? process.env.KUBECONFIG?.split(":").find((p) => p !== "");
  const inCluster = path === undefined && process.env.KUBERNETES_SERVICE_HOST !== undefined;
  let config: ClientConfig;
  if (inCluster) {
    const host = process.env.KUBERNETES_SERVICE_HOST ?? "";
    config = {
      server: `https://${host.includes(":") ? `[${host}]` : host}:${process.env.KUBERNETES_SERVICE_PORT ?? "443"}`,
      token: (await readFile(`${SERVICE_ACCOUNT}/token`, "utf8")).trim(),
      ca: await readFile(`${SERVICE_ACCOUNT}/ca.crt`, "utf8"),
    };
  } else {
    config = await loadKubeconfig(path, context);
  }
  return { client: new KubeClient({ ...config, userAgent: "balloon-agent" }), server: config.server };
}
