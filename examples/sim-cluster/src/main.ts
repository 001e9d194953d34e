import { resolve } from "node:path";
import { jsonLineLogger } from "@kubekit/generic-controlplane";
import { startSimCluster, type SimCluster } from "@kubekit/sim-cluster";
import { parseOptions, UsageError, USAGE } from "./options.js";

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

async function main(): Promise<number> {
  let options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const log = jsonLineLogger(process.stderr);
  const cluster = await startSimCluster({
    nodes: options.nodes,
    traffic: options.traffic,
    host: options.host,
    port: options.port,
    logger: options.requestLog ? log : (record) => record.msg !== "request" && log(record),
  });
  const kubeconfig = resolve(options.kubeconfig);
  await cluster.writeKubeconfig(kubeconfig);

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      log({ msg: "second signal, exiting now", signal });
      process.exit(1);
    }
    stopping = true;
    log({ msg: "shutting down", signal });
    cluster.close().then(
      () => process.exit(0),
      (error: unknown) => {
        log({ level: "error", msg: "shutdown failed", error: String(error) });
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  process.stdout.write(`ready ${cluster.url}\n${await howTo(cluster, kubeconfig, options.traffic)}`);
  return -1;
}

main().then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof UsageError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
