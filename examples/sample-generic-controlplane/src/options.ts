import { parseArgs } from "node:util";

export interface SampleOptions {
  host: string;
  port: number;
  /** `memory`, or `sqlite:<path>`. */
  storage: { kind: "memory" } | { kind: "sqlite"; path: string };
  kubeconfig: string;
  /** One JSON log line per request on stderr. */
  requestLog: boolean;
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
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be an integer between 0 and 65535, got ${JSON.stringify(values.port)}`);
  return {
    host: values.host,
    port,
    storage: parseStorage(values.storage),
    kubeconfig: values.kubeconfig,
    requestLog: !values.quiet,
    help: values.help,
  };
}

export function parseStorage(spec: string): SampleOptions["storage"] {
  if (spec === "memory") return { kind: "memory" };
  if (spec.startsWith("sqlite:") && spec.length > "sqlite:".length) return { kind: "sqlite", path: spec.slice("sqlite:".length) };
  throw new UsageError(`--storage must be "memory" or "sqlite:<path>", got ${JSON.stringify(spec)}`);
}
