import { parseArgs } from "node:util";
import { UsageError } from "@kubekit/generic-controlplane";

export interface HyperMiniOptions {
  host: string;
  port: number;
  /** `memory`, or a SQLite file that keeps every object (CRDs and widgets included) across restarts. */
  storage: { kind: "memory" } | { kind: "sqlite"; path: string };
  kubeconfig: string;
  /** Where the CA, the serving and admin certificates and the service account key are kept. */
  certDir: string;
  /** One JSON log line per request on stderr. */
  requestLog: boolean;
  help: boolean;
}

/** kube-apiserver's secure port. */
export const DEFAULT_PORT = 6443;
export const DEFAULT_STORAGE = "sqlite:.kubekit/hyper-mini/state.db";
export const DEFAULT_KUBECONFIG = ".kubekit/hyper-mini/kubeconfig";
export const DEFAULT_CERT_DIR = ".kubekit/hyper-mini/pki";

export const USAGE = `Usage: kube-hyper-mini [flags]

Serves the Widget API (widgets.hyper.example.com) over HTTPS with RBAC, a validating admission
webhook (the widget palette) and a ValidatingAdmissionPolicy (the widget size limit), plus the
namespace and garbage collection controllers.

Flags:
  --host <address>     address to listen on (default 127.0.0.1)
  --port <n>           port to listen on; 0 picks a free port (default ${DEFAULT_PORT})
  --storage <spec>     memory | sqlite:<path> (default ${DEFAULT_STORAGE})
  --kubeconfig <path>  where to write an admin kubeconfig for this server (default ${DEFAULT_KUBECONFIG})
  --cert-dir <path>    where the generated CA and certificates are kept and reused (default ${DEFAULT_CERT_DIR})
  --quiet              no per-request log lines on stderr
  -h, --help           show this help

Prints "ready <url>" on stdout once the Widget API is served; logs go to stderr as JSON lines.`;

export function parseOptions(argv: string[]): HyperMiniOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        host: { type: "string", default: "127.0.0.1" },
        port: { type: "string", default: String(DEFAULT_PORT) },
        storage: { type: "string", default: DEFAULT_STORAGE },
        kubeconfig: { type: "string", default: DEFAULT_KUBECONFIG },
        "cert-dir": { type: "string", default: DEFAULT_CERT_DIR },
        quiet: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port) || port > 65535)
    throw new UsageError(`--port must be an integer between 0 and 65535, got ${JSON.stringify(values.port)}`);
  return {
    host: values.host,
    port,
    storage: parseStorage(values.storage),
    kubeconfig: values.kubeconfig,
    certDir: values["cert-dir"],
    requestLog: !values.quiet,
    help: values.help,
  };
}

function parseStorage(spec: string): HyperMiniOptions["storage"] {
  if (spec === "memory") return { kind: "memory" };
  if (spec.startsWith("sqlite:") && spec.length > "sqlite:".length) return { kind: "sqlite", path: spec.slice("sqlite:".length) };
  throw new UsageError(`--storage must be "memory" or "sqlite:<path>", got ${JSON.stringify(spec)}`);
}
