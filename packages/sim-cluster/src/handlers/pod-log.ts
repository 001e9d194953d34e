import { badRequest, invalid } from "@kubekit/generic-controlplane";
import type { ResourceStore } from "@kubekit/generic-controlplane/registry";
import type { RequestContext, ResourceRequestInfo } from "@kubekit/generic-controlplane/server";
import { logTimestamp, runLog, type LogLine } from "../kubelet/container-logs.js";
import type { Container } from "../resources/pod-spec.js";
import type { ContainerStatus, Pod } from "../resources/pods.js";

/** How often a `follow` checks whether the run it streams has ended. */
const FOLLOW_POLL_MS = 200;

interface LogOptions {
  container: string;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  sinceSeconds: number | undefined;
  sinceTime: Date | undefined;
  tailLines: number | undefined;
  limitBytes: number | undefined;
}

interface Terminated {
  containerID?: string;
  startedAt?: string;
}

function flag(query: URLSearchParams, name: string): boolean {
  return query.get(name) === "true";
}

interface Cause {
  reason: "FieldValueInvalid" | "FieldValueForbidden";
  field: string;
  message: string;
}

const fieldInvalid = (field: string, value: unknown, detail: string): Cause => ({
  reason: "FieldValueInvalid",
  field,
  message: `Invalid value: ${JSON.stringify(value)}: ${detail}`,
});

function integer(query: URLSearchParams, name: string, errors: Cause[]): number | undefined {
  const text = query.get(name);
  if (text === null) return undefined;
  if (!/^-?\d+$/.test(text)) {
    errors.push(fieldInvalid(name, text, "must be an integer"));
    return undefined;
  }
  return Number(text);
}

/** Upstream's ValidatePodLogOptions on the query's PodLogOptions. */
function logOptions(query: URLSearchParams, name: string): LogOptions {
  const errors: Cause[] = [];
  const tailLines = integer(query, "tailLines", errors);
  const limitBytes = integer(query, "limitBytes", errors);
  const sinceSeconds = integer(query, "sinceSeconds", errors);
  const sinceTimeText = query.get("sinceTime");
  const sinceTime = sinceTimeText === null ? undefined : new Date(sinceTimeText);
  if (tailLines !== undefined && tailLines < 0) errors.push(fieldInvalid("tailLines", tailLines, "must be greater than or equal to 0"));
  if (limitBytes !== undefined && limitBytes < 1) errors.push(fieldInvalid("limitBytes", limitBytes, "must be greater than 0"));
  if (sinceSeconds !== undefined && sinceTime !== undefined)
    errors.push({
      reason: "FieldValueForbidden",
      field: "",
      message: "Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified",
    });
  if (sinceSeconds !== undefined && sinceSeconds < 1) errors.push(fieldInvalid("sinceSeconds", sinceSeconds, "must be greater than 0"));
  if (sinceTime !== undefined && Number.isNaN(sinceTime.getTime()))
    errors.push(fieldInvalid("sinceTime", sinceTimeText, "must be an RFC 3339 time"));
  if (errors.length > 0) throw invalid({ group: "", kind: "PodLogOptions" }, name, errors);
  return {
    container: query.get("container") ?? "",
    follow: flag(query, "follow"),
    previous: flag(query, "previous"),
    timestamps: flag(query, "timestamps"),
    sinceSeconds,
    sinceTime,
    tailLines,
    limitBytes,
  };
}

/** Upstream pod strategy's LogLocation: which container, by name or as the only one. */
function containerOf(pod: Pod, name: string, requested: string): Container {
  const containers = pod.spec?.containers ?? [];
  const all = [...containers, ...(pod.spec?.initContainers ?? [])];
  if (requested === "") {
    if (containers.length === 1) return containers[0]!;
    if (containers.length === 0) throw badRequest(`a container name must be specified for pod ${name}`);
    let message = `a container name must be specified for pod ${name}, choose one of: [${containers.map((c) => c.name).join(" ")}]`;
    const init = pod.spec?.initContainers ?? [];
    if (init.length > 0) message += ` or one of the init containers: [${init.map((c) => c.name).join(" ")}]`;
    throw badRequest(message);
  }
  const found = all.find((c) => c.name === requested);
  if (found === undefined) throw badRequest(`container ${requested} is not valid for pod ${name}`);
  return found;
}

function startOf(state: Record<string, unknown> | undefined): {
  running?: { startedAt?: string };
  terminated?: Terminated;
  waiting?: { reason?: string };
} {
  return state ?? {};
}

/**
 * The kubelet's validateContainerLogStatus: the run whose log is read (its start time), or
 * upstream's error for a container with none to show.
 */
function runOf(
  status: ContainerStatus | undefined,
  container: string,
  pod: string,
  previous: boolean,
): { startedAt: Date; current: boolean; containerID: string } {
  if (status === undefined) throw badRequest(`container "${container}" in pod "${pod}" is waiting to start: ContainerCreating`);
  const state = startOf(status.state);
  const last = startOf(status.lastState);
  const at = (text: string | undefined) => new Date(text ?? 0);
  if (previous) {
    if (last.terminated === undefined || !last.terminated.containerID)
      throw badRequest(`previous terminated container "${container}" in pod "${pod}" not found`);
    return { startedAt: at(last.terminated.startedAt), current: false, containerID: last.terminated.containerID };
  }
  if (state.running !== undefined) return { startedAt: at(state.running.startedAt), current: true, containerID: status.containerID ?? "" };
  if (state.terminated !== undefined) {
    if (!state.terminated.containerID) throw badRequest(`container "${container}" in pod "${pod}" is terminated`);
    return { startedAt: at(state.terminated.startedAt), current: false, containerID: state.terminated.containerID };
  }
  if (last.terminated !== undefined) {
    if (!last.terminated.containerID) throw badRequest(`container "${container}" in pod "${pod}" is terminated`);
    return { startedAt: at(last.terminated.startedAt), current: false, containerID: last.terminated.containerID };
  }
  const reason = state.waiting?.reason;
  if (reason === "ErrImagePull") throw badRequest(`container "${container}" in pod "${pod}" is waiting to start: image can't be pulled`);
  if (reason === "ImagePullBackOff")
    throw badRequest(`container "${container}" in pod "${pod}" is waiting to start: trying and failing to pull image`);
  if (reason !== undefined) throw badRequest(`container "${container}" in pod "${pod}" is waiting to start: ${reason}`);
  throw badRequest(`container "${container}" in pod "${pod}" is waiting to start - no logs yet`);
}

/** sinceSeconds/sinceTime, tailLines and timestamps applied as the kubelet's log reader does; limitBytes is applied while writing. */
function selectLines(lines: LogLine[], options: LogOptions, now: number): string[] {
  const since = options.sinceSeconds !== undefined ? now - options.sinceSeconds * 1000 : options.sinceTime?.getTime();
  let kept = since === undefined ? lines : lines.filter((l) => l.time.getTime() >= since);
  if (options.tailLines !== undefined) kept = options.tailLines === 0 ? [] : kept.slice(-options.tailLines);
  return kept.map((l) => `${options.timestamps ? `${logTimestamp(l.time)} ` : ""}${l.text}\n`);
}

function statusOf(pod: Pod, name: string): ContainerStatus | undefined {
  return [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])].find((s) => s.name === name);
}

/** Whether the run `containerID` of `container` still runs (a `follow` keeps streaming while it does). */
async function stillRunning(
  pods: ResourceStore,
  namespace: string | undefined,
  name: string,
  uid: string | undefined,
  container: string,
  containerID: string,
): Promise<boolean> {
  let pod: Pod;
  try {
    pod = await pods.get(namespace, name);
  } catch {
    return false;
  }
  if (pod.metadata?.uid !== uid) return false;
  const status = statusOf(pod, container);
  return status?.containerID === containerID && startOf(status.state).running !== undefined;
}

/**
 * `pods/<name>/log`, as kube-apiserver's LogREST and the kubelet's `containerLogs` answer it
 * together: the simulated container's log (see `runLog`) with upstream's options and errors.
 * `follow` keeps the stream open until the run ends (the container exits or restarts, or the pod
 * is deleted) or the client goes away.
 */
export async function servePodLog(ctx: RequestContext, info: ResourceRequestInfo, pods: ResourceStore): Promise<void> {
  if (ctx.method !== "GET") throw badRequest(`the server does not allow this method on the requested resource: ${ctx.method}`);
  const options = logOptions(ctx.query, info.name);
  const pod = (await pods.get(info.namespace, info.name)) as Pod;
  const container = containerOf(pod, info.name, options.container);
  const containerName = container.name ?? "";
  ctx.res.setHeader("Content-Type", "text/plain");
  // Upstream returns an empty log for a pod no node has taken yet.
  if (!pod.spec?.nodeName) {
    ctx.res.writeHead(200);
    ctx.res.end();
    return;
  }
  const run = runOf(statusOf(pod, containerName), containerName, info.name, options.previous);
  const text = selectLines(runLog(container, run.startedAt), options, Date.now()).join("");
  let body = Buffer.from(text, "utf8");
  if (options.limitBytes !== undefined && body.length > options.limitBytes) body = body.subarray(0, options.limitBytes);
  const following = options.follow && run.current && (options.limitBytes === undefined || body.length < options.limitBytes);
  if (!following) {
    ctx.res.writeHead(200, { "Content-Length": body.length });
    ctx.res.end(body);
    return;
  }
  ctx.res.writeHead(200);
  ctx.res.write(body);
  let open = true;
  ctx.res.once("close", () => {
    open = false;
  });
  while (open && (await stillRunning(pods, info.namespace, info.name, pod.metadata?.uid, containerName, run.containerID))) {
    await new Promise((resolve) => setTimeout(resolve, FOLLOW_POLL_MS));
  }
  ctx.res.end();
}
