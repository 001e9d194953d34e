import { parseArgs } from "node:util";
import { parseGoDuration, UsageError } from "@kubekit/generic-controlplane";
import { KNOWN_CONTROLLERS, selectControllers } from "@kubekit/generic-controlplane/controllers";

export interface ManagerOptions {
  /** Kubeconfig file; undefined means `$KUBECONFIG`, else `~/.kube/config`. */
  kubeconfig: string | undefined;
  context: string | undefined;
  controllers: string[];
  leaderElect: boolean;
  leaseNamespace: string;
  leaseName: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  /** Where `/metrics` and `/healthz` are served (plain HTTP). */
  bindAddress: string;
  port: number;
  help: boolean;
}

export const DEFAULT_PORT = 10257;

export const USAGE = `Usage: sample-controller-manager [flags]

Runs the namespace, garbage collector, service account and event TTL controllers against any
kube-compatible API server.

Flags:
  --kubeconfig <path>                      kubeconfig to use (default $KUBECONFIG, else ~/.kube/config)
  --context <name>                         kubeconfig context (default its current-context)
  --controllers <list>                     "*" every controller (namespace, garbagecollector,
                                           serviceaccount, eventttl), "-name" turns
                                           one off, "name" turns one on (default "*")
  --leader-elect <bool>                    run only while holding the leader Lease (default true)
  --leader-elect-resource-namespace <ns>   the Lease's namespace (default kube-system)
  --leader-elect-resource-name <name>      the Lease's name (default kube-controller-manager)
  --leader-elect-lease-duration <dur>      e.g. 15s (default 15s)
  --leader-elect-renew-deadline <dur>      (default 10s)
  --leader-elect-retry-period <dur>        (default 2s)
  --bind-address <address>                 where /metrics and /healthz listen (default 127.0.0.1)
  --port <n>                               their port; 0 picks a free one (default ${DEFAULT_PORT})
  -h, --help                               show this help

Prints "ready <url>" on stdout once /metrics is served; logs go to stderr as JSON lines.
SIGINT/SIGTERM stop the controllers and release the Lease.`;

/** A Go duration flag (`500ms`, `15s`, `1m`, `1h30m`), as kube-controller-manager reads it; in milliseconds. */
export function parseDuration(flag: string, text: string): number {
  let ms: number;
  try {
    ms = parseGoDuration(text);
  } catch (error) {
    throw new UsageError(`--${flag} must be a duration such as 15s, got ${JSON.stringify(text)}: ${(error as Error).message}`);
  }
  if (ms < 0) throw new UsageError(`--${flag} must not be negative, got ${JSON.stringify(text)}`);
  return ms;
}

export function parseOptions(argv: string[]): ManagerOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      kubeconfig: { type: "string" },
      context: { type: "string" },
      controllers: { type: "string", default: "*" },
      "leader-elect": { type: "string", default: "true" },
      "leader-elect-resource-namespace": { type: "string", default: "kube-system" },
      "leader-elect-resource-name": { type: "string", default: "kube-controller-manager" },
      "leader-elect-lease-duration": { type: "string", default: "15s" },
      "leader-elect-renew-deadline": { type: "string", default: "10s" },
      "leader-elect-retry-period": { type: "string", default: "2s" },
      "bind-address": { type: "string", default: "127.0.0.1" },
      port: { type: "string", default: String(DEFAULT_PORT) },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be an integer between 0 and 65535, got ${JSON.stringify(values.port)}`);
  const leaderElect = values["leader-elect"];
  if (leaderElect !== "true" && leaderElect !== "false")
    throw new UsageError(`--leader-elect must be true or false, got ${JSON.stringify(leaderElect)}`);
  const controllers = values.controllers
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  try {
    selectControllers(controllers, KNOWN_CONTROLLERS);
  } catch (error) {
    throw new UsageError(`--controllers: ${(error as Error).message}`);
  }
  const leaseDurationMs = parseDuration("leader-elect-lease-duration", values["leader-elect-lease-duration"]);
  const renewDeadlineMs = parseDuration("leader-elect-renew-deadline", values["leader-elect-renew-deadline"]);
  const retryPeriodMs = parseDuration("leader-elect-retry-period", values["leader-elect-retry-period"]);
  if (leaseDurationMs <= renewDeadlineMs)
    throw new UsageError("--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline");
  if (renewDeadlineMs <= retryPeriodMs * 1.2)
    throw new UsageError("--leader-elect-renew-deadline must be greater than 1.2 times --leader-elect-retry-period");
  return {
    kubeconfig: values.kubeconfig,
    context: values.context,
    controllers,
    leaderElect: leaderElect === "true",
    leaseNamespace: values["leader-elect-resource-namespace"],
    leaseName: values["leader-elect-resource-name"],
    leaseDurationMs,
    renewDeadlineMs,
    retryPeriodMs,
    bindAddress: values["bind-address"],
    port,
    help: values.help,
  };
}
