import { badRequest, internalError, type KubeObject } from "@kubekit/generic-controlplane";
import type { ResourceStore } from "@kubekit/generic-controlplane/registry";
import type { RequestContext, ResourceRequestInfo } from "@kubekit/generic-controlplane/server";
import type { Pod } from "../resources/pods.js";

/** The connect subresources of pods that run something in a container, and their options kinds. */
const STREAMING: Record<string, string> = { exec: "PodExecOptions", attach: "PodAttachOptions", portforward: "PodPortForwardOptions" };
const PROXY_OPTIONS: Record<string, string> = { pods: "PodProxyOptions", services: "ServiceProxyOptions", nodes: "NodeProxyOptions" };

export function isStreamingSubresource(subresource: string): boolean {
  return Object.hasOwn(STREAMING, subresource);
}

function bool(query: URLSearchParams, name: string, fallback: boolean): boolean {
  const value = query.get(name);
  return value === null ? fallback : value === "true" || value === "1";
}

/** The request's connect options, as upstream's connecter decodes them from the query for admission. */
export function connectOptions(ctx: RequestContext, info: ResourceRequestInfo): KubeObject {
  const query = ctx.query;
  const base = { apiVersion: "v1" };
  if (info.subresource === "proxy") {
    const at = ctx.path.indexOf("/proxy");
    const path = at === -1 ? "" : ctx.path.slice(at + "/proxy".length);
    return { ...base, kind: PROXY_OPTIONS[info.resource] ?? "PodProxyOptions", ...(path === "" ? {} : { path }) };
  }
  if (info.subresource === "portforward") {
    return { ...base, kind: "PodPortForwardOptions", ...(query.has("ports") ? { ports: query.getAll("ports").map(Number) } : {}) };
  }
  const container = query.get("container");
  return {
    ...base,
    kind: STREAMING[info.subresource] ?? "PodExecOptions",
    stdin: bool(query, "stdin", false),
    stdout: bool(query, "stdout", true),
    stderr: bool(query, "stderr", true),
    tty: bool(query, "tty", false),
    ...(container === null ? {} : { container }),
    ...(info.subresource === "exec" ? { command: query.getAll("command") } : {}),
  };
}

/** Runs CONNECT admission (webhooks and policies may deny exec, attach, port-forward and proxy) for the request. */
export async function admitConnect(store: ResourceStore, ctx: RequestContext, info: ResourceRequestInfo): Promise<void> {
  const name = info.subresource === "proxy" ? nameOf(info.name) : info.name;
  await store.connect?.(info.namespace, name, info.subresource, connectOptions(ctx, info));
}

/** `[scheme:]name[:port]` to name. */
function nameOf(id: string): string {
  const parts = id.split(":");
  return parts.length === 3 ? parts[1]! : parts[0]!;
}

/**
 * `pods/exec`, `pods/attach`, `pods/portforward`: the simulated containers run no processes, so
 * after the checks upstream makes before it reaches the kubelet (the pod, its container, that it
 * runs), the answer is the error a container runtime without streaming support gives. It comes
 * as a plain Status before any upgrade, so `kubectl exec` ends at once with it.
 */
export async function serveStreaming(ctx: RequestContext, info: ResourceRequestInfo, pods: ResourceStore): Promise<void> {
  const pod = (await pods.get(info.namespace, info.name)) as Pod;
  if (info.subresource !== "portforward") {
    const requested = ctx.query.get("container") ?? "";
    const containers = pod.spec?.containers ?? [];
    if (requested === "" && containers.length !== 1) {
      if (containers.length === 0) throw badRequest(`a container name must be specified for pod ${info.name}`);
      throw badRequest(
        `a container name must be specified for pod ${info.name}, choose one of: [${containers.map((c) => c.name).join(" ")}]`,
      );
    }
    if (requested !== "" && ![...containers, ...(pod.spec?.initContainers ?? [])].some((c) => c.name === requested)) {
      throw badRequest(`container ${requested} is not valid for pod ${info.name}`);
    }
  }
  if (pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed") {
    throw badRequest(
      `cannot ${info.subresource === "portforward" ? "port-forward to" : `${info.subresource} into`} a container in a completed pod; current phase is ${pod.status.phase}`,
    );
  }
  if (!pod.spec?.nodeName) throw badRequest(`pod ${info.name} does not have a host assigned`);
  const action =
    info.subresource === "portforward" ? "forwarding ports of" : info.subresource === "exec" ? "executing command in" : "attaching to";
  throw internalError(
    new Error(
      `error ${action} pod ${info.name}: the simulated container runtime runs no processes (${info.subresource} is not implemented)`,
    ),
  );
}
