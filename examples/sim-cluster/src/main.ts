import { resolve } from "node:path";
import { runCommand } from "@kubekit/generic-controlplane";
import { startSimCluster, type SimCluster } from "@kubekit/sim-cluster";
import { parseOptions, USAGE } from "./options.js";

interface NodeObject {
  status?: { addresses?: Array<{ type: string; address: string }> };
}

/** What to do with the cluster, printed once it is ready. */
async function howTo(cluster: SimCluster, kubeconfig: string, traffic: boolean): Promise<string> {
  const nodes = cluster.plane.store("", "nodes");
  const lines = [`kubeconfig written to ${kubeconfig}`, `  export KUBECONFIG=${kubeconfig}`, "  kubectl get nodes -o wide", "nodes:"];
  for (const name of cluster.nodes) {
    const node = (await nodes?.get(undefined, name)) as NodeObject | undefined;
    lines.push(`  ${name} ${node?.status?.addresses?.find((a) => a.type === "InternalIP")?.address ?? ""}`);
  }
  if (traffic) {
    lines.push(
      "traffic mode: pods answer on their ports like agnhost netexec; services forward from ClusterIP:port and <node address>:<nodePort>, e.g.",
      "  kubectl create deployment web --image=x --replicas=3",
      "  kubectl expose deployment web --type=NodePort --port=80 --target-port=8080",
      "  curl http://<node address>:<nodePort>/hostname",
    );
  }
  lines.push("Ctrl-C stops the cluster.");
  return `${lines.join("\n")}\n`;
}

runCommand({
  usage: USAGE,
  parse: parseOptions,
  async run(options, log) {
    const cluster = await startSimCluster({
      nodes: options.nodes,
      traffic: options.traffic,
      ...(options.nodeCapacity !== undefined ? { nodeCapacity: options.nodeCapacity } : {}),
      host: options.host,
      port: options.port,
      logger: options.requestLog ? log : (record) => record.msg !== "request" && log(record),
    });
    const kubeconfig = resolve(options.kubeconfig);
    await cluster.writeKubeconfig(kubeconfig);
    process.stdout.write(`ready ${cluster.url}\n${await howTo(cluster, kubeconfig, options.traffic)}`);
    return { stop: () => cluster.close() };
  },
});
