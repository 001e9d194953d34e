import { parseArgs } from "node:util";
import { UsageError } from "@kubekit/generic-controlplane";

export interface SimClusterBinaryOptions {
  host: string;
  port: number;
  nodes: number;
  traffic: boolean;
  /** Every node's capacity, e.g. `{ cpu: "8", memory: "32Gi" }`, over the defaults. */
  nodeCapacity: Record<string, string> | undefined;
  kubeconfig: string;
  /** One JSON log line per request on stderr. */
  requestLog: boolean;
  help: boolean;
}

export const DEFAULT_KUBECONFIG = ".kubekit/sim-cluster/kubeconfig";
export const DEFAULT_NODES = 3;

export const USAGE = `Usage: sim-cluster [flags]

Flags:
  --nodes <n>             how many simulated nodes (default ${DEFAULT_NODES})
  --traffic               traffic mode: loopback addresses for nodes, pods and ClusterIPs, pods that
                          answer like agnhost netexec, and NodePort/ClusterIP forwarding (TCP and UDP)
  --node-capacity <list>  every node's capacity, e.g. cpu=8,memory=32Gi (default cpu=4,memory=16Gi,
                          pods=110,ephemeral-storage=100Gi); change one at run time (hot-plug) with
                          kubectl annotate node <name> sim.kubekit.dev/capacity=cpu=16,memory=64Gi
  --kubeconfig <path>     where to write a kubeconfig for the cluster (default ${DEFAULT_KUBECONFIG})
  --host <address>        address the API server listens on (default 127.0.0.1)
  --port <n>              port the API server listens on; 0 picks a free port (default 0)
  --request-log           one JSON log line per request on stderr
  -h, --help              show this help

Prints "ready <url>" on stdout once every node is Ready, then how to use the cluster; logs go to
stderr as JSON lines. SIGINT/SIGTERM shut it down: every server, forwarder and node stops.`;

function integer(flag: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max)
    throw new UsageError(`${flag} must be an integer between ${min} and ${max}, got ${JSON.stringify(text)}`);
  return value;
}

const QUANTITY = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+|[numkMGTPE]|[KMGTPE]i)?$/;

/** `cpu=8,memory=32Gi` as a resource map; the quantities are checked again by the API server. */
function capacityList(text: string): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const entry of text.split(",")) {
    const [name, value, extra] = entry.split("=");
    if (!name || value === undefined || extra !== undefined || !QUANTITY.test(value)) {
      throw new UsageError(`--node-capacity must be a list such as cpu=8,memory=32Gi, got ${JSON.stringify(text)}`);
    }
    out[name] = value;
  }
  return { ...out };
}

export function parseOptions(argv: string[]): SimClusterBinaryOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        nodes: { type: "string", default: String(DEFAULT_NODES) },
        traffic: { type: "boolean", default: false },
        "node-capacity": { type: "string" },
        kubeconfig: { type: "string", default: DEFAULT_KUBECONFIG },
        host: { type: "string", default: "127.0.0.1" },
        port: { type: "string", default: "0" },
        "request-log": { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return {
    host: values.host,
    port: integer("--port", values.port, 0, 65535),
    nodes: integer("--nodes", values.nodes, 1, 1000),
    traffic: values.traffic,
    nodeCapacity: values["node-capacity"] === undefined ? undefined : capacityList(values["node-capacity"]),
    kubeconfig: values.kubeconfig,
    requestLog: values["request-log"],
    help: values.help,
  };
}
