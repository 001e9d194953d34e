import type { Pod } from "../resources/pods.js";

/** A port a pod takes on its node's address. */
export interface HostPort {
  ip: string;
  protocol: string;
  port: number;
}

export const ERR_REASON_NODE_PORTS = "node(s) didn't have free ports for the requested pod ports";

/** The host ports a pod's containers ask for (with host networking, each container port is one, as the API defaults it). */
export function hostPortsOf(pod: Pod): HostPort[] {
  const out: HostPort[] = [];
  const hostNetwork = pod.spec?.["hostNetwork"] === true;
  for (const container of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]) {
    for (const port of (container.ports ?? []) as Array<{
      containerPort?: number;
      hostPort?: number;
      hostIP?: string;
      protocol?: string;
    }>) {
      const hostPort = port.hostPort ?? (hostNetwork ? port.containerPort : undefined);
      if (hostPort === undefined || hostPort <= 0) continue;
      out.push({ ip: port.hostIP || "0.0.0.0", protocol: port.protocol || "TCP", port: hostPort });
    }
  }
  return out;
}

/** The NodePorts filter: a wanted port clashes with a used one of the same protocol and number on the same address, or when either listens on all addresses. */
export function hostPortsConflict(wanted: readonly HostPort[], used: readonly HostPort[]): boolean {
  return wanted.some((w) =>
    used.some((u) => u.port === w.port && u.protocol === w.protocol && (u.ip === w.ip || u.ip === "0.0.0.0" || w.ip === "0.0.0.0")),
  );
}
