import { ControlPlaneError, badRequest } from "@kubekit/generic-controlplane";
import type { ResourceStore } from "@kubekit/generic-controlplane/registry";
import type { RequestContext, ResourceRequestInfo } from "@kubekit/generic-controlplane/server";
import { parseMilli, quantityText } from "../quantity.js";
import type { Node } from "../resources/nodes.js";
import type { Pod } from "../resources/pods.js";
import { KUBELET_PORT } from "../kubelet/kubelet.js";
import { writeJson } from "./respond.js";

/**
 * `nodes/<[scheme:]name[:port]>/proxy/<path>`: kube-apiserver proxies these to the node's kubelet
 * (its daemon endpoint, 10250). The simulated kubelets have no server of their own, so the API
 * server answers for them what a kubelet answers on the paths tools read: `/healthz`, `/pods`
 * (the node's pods), `/configz`, `/stats/summary` and a minimal `/metrics`. A node that is not
 * Ready answers as an unreachable kubelet does.
 */

function nodeName(id: string): { name: string; port: string } {
  const parts = id.split(":");
  if (parts.length === 1) return { name: parts[0]!, port: "" };
  if (parts.length === 2) return { name: parts[0]!, port: parts[1]! };
  if (parts.length === 3 && (parts[0] === "" || parts[0] === "http" || parts[0] === "https")) return { name: parts[1]!, port: parts[2]! };
  throw badRequest(`invalid node request ${JSON.stringify(id)}`);
}

function proxiedPath(ctx: RequestContext): string {
  const at = ctx.path.indexOf("/proxy");
  const rest = at === -1 ? "" : ctx.path.slice(at + "/proxy".length);
  return rest === "" ? "/" : rest;
}

function milli(map: Record<string, unknown> | undefined, resource: string): bigint {
  const text = quantityText(map?.[resource]);
  return (text === undefined ? undefined : parseMilli(text)) ?? 0n;
}

/** What the simulated containers use: exactly their requests (the sim runs no processes to measure). */
function containerStats(pod: Pod, now: string) {
  return (pod.spec?.containers ?? []).map((container) => {
    const requests = container.resources?.requests as Record<string, unknown> | undefined;
    const status = pod.status?.containerStatuses?.find((s) => s.name === container.name);
    const running = (status?.state as { running?: { startedAt?: string } } | undefined)?.running;
    const cpuMilli = milli(requests, "cpu");
    const memory = milli(requests, "memory") / 1000n;
    return {
      name: container.name,
      startTime: running?.startedAt ?? pod.status?.startTime ?? now,
      cpu: { time: now, usageNanoCores: Number(cpuMilli * 1_000_000n), usageCoreNanoSeconds: 0 },
      memory: {
        time: now,
        usageBytes: Number(memory),
        workingSetBytes: Number(memory),
        rssBytes: Number(memory),
        pageFaults: 0,
        majorPageFaults: 0,
      },
    };
  });
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

function statsSummary(node: Node, pods: Pod[]) {
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const podStats = pods.map((pod) => {
    const containers = containerStats(pod, now);
    return {
      podRef: { name: pod.metadata?.name, namespace: pod.metadata?.namespace, uid: pod.metadata?.uid },
      startTime: pod.status?.startTime ?? now,
      containers,
      cpu: { time: now, usageNanoCores: sum(containers.map((c) => c.cpu.usageNanoCores)), usageCoreNanoSeconds: 0 },
      memory: {
        time: now,
        usageBytes: sum(containers.map((c) => c.memory.usageBytes)),
        workingSetBytes: sum(containers.map((c) => c.memory.workingSetBytes)),
      },
    };
  });
  const capacityMemory = Number(milli(node.status?.capacity, "memory") / 1000n);
  const usedMemory = sum(podStats.map((p) => p.memory.workingSetBytes));
  return {
    node: {
      nodeName: node.metadata?.name,
      startTime: node.metadata?.creationTimestamp ?? now,
      cpu: { time: now, usageNanoCores: sum(podStats.map((p) => p.cpu.usageNanoCores)), usageCoreNanoSeconds: 0 },
      memory: { time: now, availableBytes: Math.max(capacityMemory - usedMemory, 0), usageBytes: usedMemory, workingSetBytes: usedMemory },
    },
    pods: podStats,
  };
}

function metricsText(node: Node, pods: Pod[]): string {
  const name = node.metadata?.name ?? "";
  return [
    "# HELP kubelet_running_pods [ALPHA] Number of pods that have a running pod sandbox",
    "# TYPE kubelet_running_pods gauge",
    `kubelet_running_pods ${pods.filter((p) => p.status?.phase === "Running").length}`,
    "# HELP kubelet_running_containers [ALPHA] Number of containers currently running",
    "# TYPE kubelet_running_containers gauge",
    `kubelet_running_containers{container_state="running"} ${sum(pods.map((p) => (p.status?.containerStatuses ?? []).filter((s) => (s.state as { running?: unknown } | undefined)?.running !== undefined).length))}`,
    "# HELP kubelet_node_name [ALPHA] The node's name. The count is always 1.",
    "# TYPE kubelet_node_name gauge",
    `kubelet_node_name{node="${name}"} 1`,
    "",
  ].join("\n");
}

export async function serveNodeProxy(
  ctx: RequestContext,
  info: ResourceRequestInfo,
  stores: { nodes: ResourceStore; pods: ResourceStore },
): Promise<void> {
  const { name, port } = nodeName(info.name);
  const node = (await stores.nodes.get(undefined, name)) as Node;
  const ready = node.status?.conditions?.find((c) => c.type === "Ready")?.status === "True";
  const address = node.status?.addresses?.find((a) => a.type === "InternalIP")?.address ?? name;
  const target = `${address}:${port === "" ? KUBELET_PORT : port}`;
  if (!ready || (port !== "" && port !== String(KUBELET_PORT))) {
    throw new ControlPlaneError("ServiceUnavailable", `error trying to reach service: dial tcp ${target}: connect: connection refused`);
  }
  if (ctx.method !== "GET" && ctx.method !== "HEAD")
    throw new ControlPlaneError(
      "MethodNotAllowed",
      `the server does not allow this method on the requested resource (${ctx.method} ${proxiedPath(ctx)})`,
    );
  const path = proxiedPath(ctx);
  const ownPods = async () =>
    ((await stores.pods.list(undefined, { fieldSelector: `spec.nodeName=${name}` })).items as Pod[]).filter(
      (p) => p.status?.phase !== "Succeeded" && p.status?.phase !== "Failed",
    );
  switch (path) {
    case "/healthz": {
      ctx.res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8", "Content-Length": 2 });
      ctx.res.end("ok");
      return;
    }
    case "/pods":
    case "/pods/":
      writeJson(ctx, 200, { kind: "PodList", apiVersion: "v1", metadata: {}, items: await ownPods() });
      return;
    case "/configz":
      writeJson(ctx, 200, {
        kubeletconfig: {
          enableServer: true,
          port: KUBELET_PORT,
          podCIDR: node.spec?.podCIDR ?? "",
          maxPods: Number(milli(node.status?.capacity, "pods") / 1000n),
          cgroupDriver: "systemd",
          containerRuntimeEndpoint: "sim://",
          kind: "KubeletConfiguration",
          apiVersion: "kubelet.config.k8s.io/v1beta1",
        },
      });
      return;
    case "/stats/summary":
      writeJson(ctx, 200, statsSummary(node, await ownPods()));
      return;
    case "/metrics": {
      const text = metricsText(node, await ownPods());
      ctx.res.writeHead(200, { "Content-Type": "text/plain; version=0.0.4; charset=utf-8", "Content-Length": Buffer.byteLength(text) });
      ctx.res.end(text);
      return;
    }
    default:
      throw new ControlPlaneError("NotFound", "the server could not find the requested resource");
  }
}
