import { inClusterConfig, isInCluster, KubeClient, loadKubeconfig } from "@kubekit/client";

/**
 * The agent's one client (informers, leader election, events and `resizeNode`): a kubeconfig when
 * given or in `$KUBECONFIG`; else the pod's service account when running in a cluster; else `~/.kube/config`.
 */
export async function loadClient(
  kubeconfig: string | undefined,
  context: string | undefined,
): Promise<{ client: KubeClient; server: string }> {
  const path = kubeconfig ?? process.env.KUBECONFIG?.split(":").find((p) => p !== "");
  const config = path === undefined && isInCluster() ? await inClusterConfig() : await loadKubeconfig(path, context);
  return { client: new KubeClient({ ...config, userAgent: "balloon-agent" }), server: config.server };
}
