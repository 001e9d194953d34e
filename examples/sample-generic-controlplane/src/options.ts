import { parseArgs } from "node:util";
import { KNOWN_CONTROLLERS, selectControllers } from "@kubekit/generic-controlplane/controllers";

export interface SampleOptions {
  host: string;
  port: number;
  /** `memory`, or `sqlite:<path>`. */
  storage: { kind: "memory" } | { kind: "sqlite"; path: string };
  kubeconfig: string;
  /** One JSON log line per request on stderr. */
  requestLog: boolean;
  /** kube-controller-manager's `--controllers` entries; empty runs no controllers. */
  controllers: string[];
  /** Run the controllers only while holding the kube-system/kube-controller-manager Lease. */
  leaderElect: boolean;
  help: boolean;
}

export const DEFAULT_PORT = 8080;
export const DEFAULT_STORAGE = "sqlite:.kubekit/data/state.db";
export const DEFAULT_KUBECONFIG = ".kubekit/kubeconfig";

export const USAGE = `Usage: sample-generic-controlplane [flags]

Flags:
  --host <address>        address to listen on (default 127.0.0.1)
  --port <n>              port to listen on; 0 picks a free port (default ${DEFAULT_PORT})
  --storage <spec>        memory | sqlite:<path> (default ${DEFAULT_STORAGE})
  --kubeconfig <path>     where to write a kubeconfig for this server (default ${DEFAULT_KUBECONFIG})
  --controllers <list>    controllers to run in-process, kube-controller-manager style: "*" is every
                          controller (namespace, garbagecollector, serviceaccount, eventttl), "-name"
                          turns one off, "" none
                          (default "*")
  --leader-elect <bool>   run the controllers only while holding the Lease
                          kube-system/kube-controller-manager (default true)
  --quiet                 no per-request log lines on stderr
  -h, --help              show this help

Prints "ready <url>" on stdout once serving; logs go to stderr as JSON lines.
SIGINT/SIGTERM shut down gracefully (watches end, in-flight requests finish).`;

export class UsageError extends Error {
  override readonly name = "UsageError";
}

export function parseOptions(argv: string[]): SampleOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      host: { type: "string", default: "127.0.0.1" },
      port: { type: "string", default: String(DEFAULT_PORT) },
      storage: { type: "string", default: DEFAULT_STORAGE },
      kubeconfig: { type: "string", default: DEFAULT_KUBECONFIG },
      quiet: { type: "boolean", default: false },
      controllers: { type: "string", default: "*" },
      "leader-elect": { type: "string", default: "true" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be an integer between 0 and 65535, got ${JSON.stringify(values.port)}`);
  const leaderElect = values["leader-elect"];
  if (leaderElect !== "true" && leaderElect !== "false") throw new UsageError(`--leader-elect must be true or false, got ${JSON.stringify(leaderElect)}`);
  const controllers = values.controllers
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  try {
    selectControllers(controllers, KNOWN_CONTROLLERS);
  } catch (error) {
    throw new UsageError(`--controllers: ${(error as Error).message}`);
  }
  return {
    host: values.host,
    port,
    storage: parseStorage(values.storage),
    kubeconfig: values.kubeconfig,
    requestLog: !values.quiet,
    controllers,
    leaderElect: leaderElect === "true",
    help: values.help,
  };
}

export function parseStorage(spec: string): SampleOptions["storage"] {
  if (spec === "memory") return { kind: "memory" };
  if (spec.startsWith("sqlite:") && spec.length > "sqlite:".length) return { kind: "sqlite", path: spec.slice("sqlite:".length) };
  throw new UsageError(`--storage must be "memory" or "sqlite:<path>", got ${JSON.stringify(spec)}`);
}
