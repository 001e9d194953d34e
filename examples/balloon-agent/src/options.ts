import { parseArgs } from "node:util";
import type { ShortfallPolicy } from "@kubekit/balloon";
import { parseGoDuration, UsageError } from "@kubekit/generic-controlplane";
import { DEFAULT_METRIC_NODE_LABELS } from "./metrics.js";

export interface AgentOptions {
  /** Kubeconfig file; undefined means `$KUBECONFIG`, else in-cluster, else `~/.kube/config`. */
  kubeconfig: string | undefined;
  context: string | undefined;
  leaderElect: boolean;
  leaseNamespace: string;
  leaseName: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  onShortfall: ShortfallPolicy;
  /** The balloon DaemonSet (and PriorityClass) whose pods are the balloons. */
  balloonName: string;
  balloonNamespace: string;
  resizeTimeoutMs: number;
  retryAfterMs: number;
  maxRetryAfterMs: number;
  /** Node labels the node gauges carry (as `label_<name>`). */
  metricNodeLabels: string[];
  bindAddress: string;
  port: number;
  /** Print the manifests for this image and exit. */
  printManifests: string | undefined;
  help: boolean;
}

export const USAGE = `Usage: balloon-agent [flags]

Keeps every node at the effective size its balloon.kubekit.dev/target annotation asks for
(e.g. cpu=4,memory=16Gi) by resizing the node's balloon pod through pods/resize.

Flags:
  --kubeconfig <path>             kubeconfig (default $KUBECONFIG, else the in-cluster service account, else ~/.kube/config)
  --context <name>                kubeconfig context
  --leader-elect <bool>           resize only while holding the Lease (default true)
  --lease-namespace <ns>          the Lease's namespace (default kube-system)
  --lease-name <name>             the Lease's name (default balloon-agent)
  --lease-duration <dur>          (default 15s)
  --renew-deadline <dur>          (default 10s)
  --retry-period <dur>            (default 2s)
  --balloon-name <name>           the balloon DaemonSet and PriorityClass; only its pods are resized (default node-balloon)
  --balloon-namespace <ns>        the balloon DaemonSet's namespace (default kube-system)
  --on-shortfall <policy>         refuse | defer | partial, when a target does not fit beside the pods (default refuse)
  --resize-timeout <dur>          how long one resize waits for the kubelet (default 1m)
  --retry-after <dur>             when to look again at a deferred or timed-out node, and the first backoff
                                  after a refused or infeasible one (default 30s)
  --max-retry-after <dur>         the longest backoff while a refused or infeasible node does not change (default 10m)
  --metric-node-labels <list>     Node labels the node gauges carry as label_<name>, comma-separated; empty for none
                                  (default topology.kubernetes.io/zone,node.kubernetes.io/instance-type)
  --bind-address <address>        where /metrics and /healthz listen (default 127.0.0.1)
  --port <n>                      their port; 0 picks a free one (default 8080)
  --print-manifests <image>       print the balloon bundle and the agent's RBAC, policy and Deployment, and exit
  -h, --help                      show this help

Prints "ready <url>" on stdout once /metrics is served; logs go to stderr as JSON lines.`;

function duration(flag: string, text: string): number {
  let ms: number;
  try {
    ms = parseGoDuration(text);
  } catch (error) {
    throw new UsageError(`--${flag} must be a duration such as 15s, got ${JSON.stringify(text)}: ${(error as Error).message}`);
  }
  if (ms <= 0) throw new UsageError(`--${flag} must be positive, got ${JSON.stringify(text)}`);
  return ms;
}

function bool(flag: string, text: string): boolean {
  if (text === "true") return true;
  if (text === "false") return false;
  throw new UsageError(`--${flag} must be true or false, got ${JSON.stringify(text)}`);
}

const POLICIES: readonly ShortfallPolicy[] = ["refuse", "defer", "partial"];

export function parseOptions(argv: readonly string[]): AgentOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        kubeconfig: { type: "string" },
        context: { type: "string" },
        "leader-elect": { type: "string", default: "true" },
        "lease-namespace": { type: "string", default: "kube-system" },
        "lease-name": { type: "string", default: "balloon-agent" },
        "lease-duration": { type: "string", default: "15s" },
        "renew-deadline": { type: "string", default: "10s" },
        "retry-period": { type: "string", default: "2s" },
        "on-shortfall": { type: "string", default: "refuse" },
        "balloon-name": { type: "string", default: "node-balloon" },
        "balloon-namespace": { type: "string", default: "kube-system" },
        "resize-timeout": { type: "string", default: "1m" },
        "retry-after": { type: "string", default: "30s" },
        "max-retry-after": { type: "string", default: "10m" },
        "bind-address": { type: "string", default: "127.0.0.1" },
        "metric-node-labels": { type: "string", default: DEFAULT_METRIC_NODE_LABELS.join(",") },
        port: { type: "string", default: "8080" },
        "print-manifests": { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const policy = values["on-shortfall"];
  if (!POLICIES.includes(policy as ShortfallPolicy))
    throw new UsageError(`--on-shortfall must be one of ${POLICIES.join(", ")}, got ${JSON.stringify(policy)}`);
  if (!/^[0-9]+$/.test(values.port) || Number(values.port) > 65535)
    throw new UsageError(`--port must be a port number, got ${JSON.stringify(values.port)}`);
  return {
    kubeconfig: values.kubeconfig,
    context: values.context,
    leaderElect: bool("leader-elect", values["leader-elect"]),
    leaseNamespace: values["lease-namespace"],
    leaseName: values["lease-name"],
    leaseDurationMs: duration("lease-duration", values["lease-duration"]),
    renewDeadlineMs: duration("renew-deadline", values["renew-deadline"]),
    retryPeriodMs: duration("retry-period", values["retry-period"]),
    onShortfall: policy as ShortfallPolicy,
    balloonName: values["balloon-name"],
    balloonNamespace: values["balloon-namespace"],
    resizeTimeoutMs: duration("resize-timeout", values["resize-timeout"]),
    retryAfterMs: duration("retry-after", values["retry-after"]),
    maxRetryAfterMs: duration("max-retry-after", values["max-retry-after"]),
    metricNodeLabels: values["metric-node-labels"].split(",").filter((label) => label !== ""),
    bindAddress: values["bind-address"],
    port: Number(values.port),
    printManifests: values["print-manifests"],
    help: values.help,
  };
}
