import { readFile } from "node:fs/promises";
import { KubeClient, loadKubeconfig, type ClientConfig } from "@kubekit/generic-controlplane/controllers";
import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";

const SERVICE_ACCOUNT = "/var/run/secrets/kubernetes.io/serviceaccount";

/**
 * Both clients the agent uses, on one identity: the controller runtime's `KubeClient` (informers,
 * leader election, events) and client-node's `CoreV1Api` (what `resizeNode` takes). A kubeconfig
 * when given or in `$KUBECONFIG`; else the pod's service account when running in a cluster; else `~/.kube/config`.
 */
export async function loadClients(kubeconfig: string | undefined, context: string | undefined): Promise<{ client: KubeClient; core: CoreV1Api; server: string }> {
  const path = kubeconfig ?? process.env.KUBECONFIG?.split(":").find((p) => p !== "");
  const inCluster = path === undefined && process.env.KUBERNETES_SERVICE_HOST !== undefined;
  const clientNode = new KubeConfig();
  let config: ClientConfig;
  if (inCluster) {
    clientNode.loadFromCluster();
    const host = process.env.KUBERNETES_SERVICE_HOST ?? "";
    config = {
      server: `https://${host.includes(":") ? `[${host}]` : host}:${process.env.KUBERNETES_SERVICE_PORT ?? "443"}`,
      token: (await readFile(`${SERVICE_ACCOUNT}/token`, "utf8")).trim(),
      ca: await readFile(`${SERVICE_ACCOUNT}/ca.crt`, "utf8"),
    };
  } else {
    config = await loadKubeconfig(path, context);
    if (path !== undefined) clientNode.loadFromFile(path);
    else clientNode.loadFromDefault();
    if (context !== undefined) clientNode.setCurrentContext(context);
  }
  return { client: new KubeClient({ ...config, userAgent: "balloon-agent" }), core: clientNode.makeApiClient(CoreV1Api), server: config.server };
}
