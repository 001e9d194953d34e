import type { Container } from "../resources/pod-spec.js";
import type { Pod } from "../resources/pods.js";

/** What a simulated container answers on one port: agnhost's `netexec` or `serve-hostname`. */
export interface EchoListen {
  protocol: "TCP" | "UDP";
  port: number;
  /** netexec's HTTP endpoints or UDP commands; serve-hostname's HTTP, raw TCP or UDP hostname. */
  style: "netexec" | "serve-hostname-http" | "serve-hostname-tcp";
}

/** netexec's defaults (`--http-port=8080 --udp-port=8081`). */
export const NETEXEC_HTTP_PORT = 8080;
export const NETEXEC_UDP_PORT = 8081;
/** serve-hostname's default `--port`. */
export const SERVE_HOSTNAME_PORT = 9376;

function flag(args: readonly string[], name: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === `--${name}` || arg === `-${name}`) {
      const next = args[i + 1];
      return next === undefined || next.startsWith("-") ? "true" : next;
    }
    const match = /^--?([^=]+)=(.*)$/.exec(arg);
    if (match?.[1] === name) return match[2];
  }
  return undefined;
}

function portFlag(args: readonly string[], name: string, fallback: number): number {
  const value = Number(flag(args, name) ?? fallback);
  return Number.isInteger(value) ? value : fallback;
}

function truthy(value: string | undefined, fallback: boolean): boolean {
  return value === undefined ? fallback : value !== "false";
}

/** The agnhost subcommand a container runs (`agnhost netexec …` in its command or args), if any. */
export function agnhostArgs(container: Container): string[] | undefined {
  const words = [...((container["command"] as string[] | undefined) ?? []), ...((container["args"] as string[] | undefined) ?? [])].filter(
    (w) => typeof w === "string",
  );
  const at = words.findIndex((w) => w === "netexec" || w === "serve-hostname");
  return at === -1 ? undefined : words.slice(at);
}

export function listensOf(container: Container): EchoListen[] {
  const agnhost = agnhostArgs(container);
  if (agnhost?.[0] === "netexec") {
    const http = portFlag(agnhost, "http-port", NETEXEC_HTTP_PORT);
    const udp = portFlag(agnhost, "udp-port", NETEXEC_UDP_PORT);
    return [
      ...(http > 0 ? [{ protocol: "TCP" as const, port: http, style: "netexec" as const }] : []),
      ...(udp > 0 ? [{ protocol: "UDP" as const, port: udp, style: "netexec" as const }] : []),
    ];
  }
  if (agnhost?.[0] === "serve-hostname") {
    const port = portFlag(agnhost, "port", SERVE_HOSTNAME_PORT);
    const tcp = truthy(flag(agnhost, "tcp"), false);
    const udp = truthy(flag(agnhost, "udp"), false);
    const http = truthy(flag(agnhost, "http"), !tcp && !udp);
    return [
      ...(http ? [{ protocol: "TCP" as const, port, style: "serve-hostname-http" as const }] : []),
      ...(tcp ? [{ protocol: "TCP" as const, port, style: "serve-hostname-tcp" as const }] : []),
      ...(udp ? [{ protocol: "UDP" as const, port, style: "netexec" as const }] : []),
    ];
  }
  return (container.ports ?? []).flatMap((p): EchoListen[] => {
    const protocol = p.protocol ?? "TCP";
    if (typeof p.containerPort !== "number" || (protocol !== "TCP" && protocol !== "UDP")) return [];
    return [{ protocol, port: p.containerPort, style: "netexec" }];
  });
}

/**
 * The ports a pod answers on. A container running agnhost `netexec` or `serve-hostname` (in its
 * command or args) listens where those flags say; any other container answers as netexec on each
 * TCP and UDP containerPort it declares. A pod that declares no port at all answers as netexec
 * does by default: HTTP on 8080, UDP on 8081.
 */
export function echoListensOf(pod: Pod): EchoListen[] {
  const all = (pod.spec?.containers ?? []).flatMap(listensOf);
  const declared = (pod.spec?.containers ?? []).some((c) => (c.ports ?? []).length > 0 || agnhostArgs(c) !== undefined);
  const listens = declared
    ? all
    : [
        { protocol: "TCP" as const, port: NETEXEC_HTTP_PORT, style: "netexec" as const },
        { protocol: "UDP" as const, port: NETEXEC_UDP_PORT, style: "netexec" as const },
      ];
  const seen = new Set<string>();
  return listens.filter((l) => {
    const key = `${l.protocol}/${l.port}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The hostname a pod's processes see: `spec.hostname`, else the pod's name (at most 63 characters). */
export function podHostname(pod: Pod): string {
  const hostname = pod.spec?.["hostname"];
  return (typeof hostname === "string" && hostname !== "" ? hostname : (pod.metadata?.name ?? "")).slice(0, 63);
}

/**
 * How long a pod's containers take to stop once asked to: agnhost netexec's `--delay-shutdown`
 * (seconds it keeps serving after SIGTERM), the longest of its containers; 0 for anything else.
 * Upstream's terminating-endpoint e2e tests hold pods in Terminating this way.
 */
export function shutdownDelayMsOf(pod: Pod): number {
  let longest = 0;
  for (const container of pod.spec?.containers ?? []) {
    const agnhost = agnhostArgs(container);
    if (agnhost?.[0] !== "netexec") continue;
    const seconds = Number(flag(agnhost, "delay-shutdown") ?? 0);
    if (Number.isFinite(seconds) && seconds > 0) longest = Math.max(longest, seconds * 1000);
  }
  return longest;
}
