import { defaultLoadBalancerName, LOAD_BALANCER_CLEANUP_FINALIZER } from "@kubekit/ccm-e2e";
import {
  ExponentialRateLimiter,
  isNotFound,
  PATCH_JSON,
  runWorkers,
  WorkQueue,
  type Controller,
  type ControllerContext,
} from "@kubekit/generic-controlplane/controllers";
import type { FakeCloud } from "../cloud/fake-cloud.js";
import type { Target } from "../cloud/listener.js";
import { listenerKey, type LoadBalancerSpec } from "../cloud/load-balancers.js";
import type { Fault } from "../faults.js";
import { untilAborted } from "./until-aborted.js";
import {
  internalIP,
  isReady,
  isReadyEndpoint,
  NODES,
  PODS,
  SERVICES,
  type NodeObject,
  type PodObject,
  type ServiceObject,
} from "./objects.js";

/** The annotation that asks the fake cloud for an internal load balancer (as `networking.gke.io/load-balancer-type: Internal`). */
export const INTERNAL_LB_ANNOTATION = "fake-cloud.kubekit.dev/load-balancer-type";
export const INTERNAL_LB_VALUE = "Internal";

/** Nodes with this label get no load balancer traffic (upstream's `node.kubernetes.io/exclude-from-external-load-balancers`). */
const EXCLUDE_FROM_LB = "node.kubernetes.io/exclude-from-external-load-balancers";

/**
 * The service controller of k8s.io/cloud-provider, against the fake cloud: a `LoadBalancer`
 * service gets the cleanup finalizer, a load balancer (listeners per port and protocol, session
 * affinity, backends) and `status.loadBalancer.ingress`; a service that stops being one, or is
 * deleted, has its load balancer deleted, then the status and the finalizer removed.
 * `externalTrafficPolicy: Local` sends only to nodes with a ready endpoint (what the health
 * check of a real cloud's LB finds); `allocateLoadBalancerNodePorts: false` sends to the pods.
 */
export function serviceController(cloud: FakeCloud, fault?: Fault): Controller {
  return {
    name: "service",
    async run(context: ControllerContext, signal: AbortSignal) {
      const queue = new WorkQueue({ name: "service", rateLimiter: new ExponentialRateLimiter(50, 2000) });
      const services = context.informers.informerFor(SERVICES);
      const nodes = context.informers.informerFor(NODES);
      const pods = context.informers.informerFor(PODS);
      const key = (o: { metadata?: { namespace?: string; name?: string } }) => `${o.metadata?.namespace}/${o.metadata?.name}`;
      const loadBalancerServices = (namespace?: string) =>
        (services.cache.list() as ServiceObject[]).filter(
          (s) =>
            (namespace === undefined || s.metadata.namespace === namespace) &&
            (s.spec.type === "LoadBalancer" || s.metadata.finalizers?.includes(LOAD_BALANCER_CLEANUP_FINALIZER)),
        );
      services.addEventHandler({ add: (s) => queue.add(key(s)), update: (_o, s) => queue.add(key(s)), delete: (s) => queue.add(key(s)) });
      const resyncAll = () => loadBalancerServices().forEach((s) => queue.add(key(s)));
      nodes.addEventHandler({ add: resyncAll, update: resyncAll, delete: resyncAll });
      const resyncNamespace = (p: { metadata?: { namespace?: string } }) =>
        loadBalancerServices(p.metadata?.namespace).forEach((s) => queue.add(key(s)));
      pods.addEventHandler({ add: resyncNamespace, update: (_o, p) => resyncNamespace(p), delete: resyncNamespace });
      services.start();
      nodes.start();
      pods.start();
      await Promise.race([Promise.all([services.waitForSync(), nodes.waitForSync(), pods.waitForSync()]), untilAborted(signal)]);
      signal.addEventListener("abort", () => queue.shutDown(), { once: true });

      // The `upgrade-drops-lb-backends` fault: the version each node had when first seen.
      const firstKubeletVersions = new Map<string, string>();
      const backendCandidates = (): NodeObject[] => {
        const all = nodes.cache.list() as NodeObject[];
        if (fault !== "upgrade-drops-lb-backends") return all;
        return all.filter((node) => {
          const version = kubeletVersion(node);
          if (!firstKubeletVersions.has(node.metadata.name)) firstKubeletVersions.set(node.metadata.name, version);
          return firstKubeletVersions.get(node.metadata.name) === version;
        });
      };
      const reconcile = async (serviceKey: string) => {
        const service = services.cache.get(serviceKey) as ServiceObject | undefined;
        if (service === undefined) return;
        const hasFinalizer = service.metadata.finalizers?.includes(LOAD_BALANCER_CLEANUP_FINALIZER) ?? false;
        const wantsLB = service.spec.type === "LoadBalancer" && service.metadata.deletionTimestamp === undefined;
        const lbName = defaultLoadBalancerName(service as never);
        if (!wantsLB) {
          if (!hasFinalizer && cloud.loadBalancers.get(lbName) === undefined) return;
          if (fault !== "leak-load-balancers") await cloud.loadBalancers.delete(lbName);
          if ((service.status?.loadBalancer?.ingress?.length ?? 0) > 0) await patchStatus(context, service, []);
          if (hasFinalizer && fault !== "keep-finalizer") await setFinalizer(context, service, false);
          return;
        }
        if (!hasFinalizer) await setFinalizer(context, service, true);
        const existing = cloud.loadBalancers.spec(lbName);
        const spec =
          fault === "ignore-port-changes" && existing !== undefined
            ? existing
            : loadBalancerSpec(lbName, service, backendCandidates(), pods.cache.list() as PodObject[], fault);
        const ip = await cloud.loadBalancers.ensure(spec);
        if (service.status?.loadBalancer?.ingress?.[0]?.ip !== ip) await patchStatus(context, service, [{ ip }]);
      };
      await runWorkers(
        queue,
        2,
        async (k) => {
          try {
            await reconcile(k);
          } catch (error) {
            if (!isNotFound(error)) throw error;
          }
        },
        context.logger,
      );
    },
  };
}

function kubeletVersion(node: NodeObject): string {
  return (node.status as { nodeInfo?: { kubeletVersion?: string } } | undefined)?.nodeInfo?.kubeletVersion ?? "";
}

/** What the cloud should be programmed with for the service, from the nodes and pods the caches hold. */
export function loadBalancerSpec(
  name: string,
  service: ServiceObject,
  nodes: NodeObject[],
  pods: PodObject[],
  fault?: Fault,
): LoadBalancerSpec {
  const endpoints = pods.filter((pod) => isReadyEndpoint(service, pod));
  const endpointNodes = new Set(endpoints.map((pod) => pod.spec?.nodeName));
  const local = service.spec.externalTrafficPolicy === "Local" && fault !== "etp-local-all-nodes";
  const backends = nodes.filter(
    (node) => isReady(node) && node.metadata.labels?.[EXCLUDE_FROM_LB] === undefined && (!local || endpointNodes.has(node.metadata.name)),
  );
  const ports = (service.spec.ports ?? []).map((p) => ({
    port: p.port,
    protocol: fault === "ignore-protocol" ? "TCP" : (p.protocol ?? "TCP"),
    ...((p.nodePort ?? 0) !== 0 ? { nodePort: p.nodePort! } : {}),
    targetPort: p.targetPort,
  }));
  const targets = new Map<string, Target[]>();
  for (const port of ports) {
    const list: Target[] =
      port.nodePort !== undefined
        ? backends.flatMap((node) => {
            const address = internalIP(node);
            return address === undefined ? [] : [{ name: node.metadata.name, address, port: port.nodePort! }];
          })
        : endpoints
            .filter((pod) => !local || backends.some((n) => n.metadata.name === pod.spec?.nodeName))
            .map((pod) => ({
              name: pod.metadata.name,
              address: pod.status!.podIP!,
              port: resolveTargetPort(pod, port.targetPort, port.port),
            }));
    targets.set(listenerKey(port.port, port.protocol), list);
  }
  return {
    name,
    ports: ports.map(({ targetPort: _t, ...p }) => p),
    sessionAffinity: fault === "drop-session-affinity" ? "None" : (service.spec.sessionAffinity ?? "None"),
    targets,
    backendNodes: backends.map((node) => node.metadata.name),
    sourceRanges: fault === "ignore-source-ranges" ? [] : (service.spec.loadBalancerSourceRanges ?? []),
    ...(service.metadata.annotations?.[INTERNAL_LB_ANNOTATION] === INTERNAL_LB_VALUE
      ? { internal: { clusterNetwork: clusterNetwork(nodes) } }
      : {}),
  };
}

/** The cluster's network as an internal load balancer sees it: every node's address and pod ranges. */
function clusterNetwork(nodes: NodeObject[]): string[] {
  return nodes.flatMap((node) => {
    const address = internalIP(node);
    return [...(address === undefined ? [] : [`${address}/32`]), ...(node.spec?.podCIDRs ?? [])];
  });
}

function resolveTargetPort(pod: PodObject, targetPort: number | string | undefined, port: number): number {
  if (typeof targetPort === "number") return targetPort;
  if (typeof targetPort === "string") {
    for (const container of pod.spec?.containers ?? []) {
      const named = container.ports?.find((p) => p.name === targetPort);
      if (named !== undefined) return named.containerPort;
    }
  }
  return port;
}

async function patchStatus(context: ControllerContext, service: ServiceObject, ingress: { ip: string }[]): Promise<void> {
  // A merge patch removes a field with null; an empty object would leave the old ingress in place.
  await context.client.patch(
    SERVICES,
    service.metadata.namespace,
    service.metadata.name,
    { status: { loadBalancer: { ingress: ingress.length === 0 ? null : ingress } } },
    undefined,
    "status",
  );
}

/** Adds or removes the cleanup finalizer with a JSON patch guarded by the list read (a conflict retries). */
async function setFinalizer(context: ControllerContext, service: ServiceObject, present: boolean): Promise<void> {
  const current = service.metadata.finalizers ?? [];
  const next = present ? [...current, LOAD_BALANCER_CLEANUP_FINALIZER] : current.filter((f) => f !== LOAD_BALANCER_CLEANUP_FINALIZER);
  await context.client.patch(
    SERVICES,
    service.metadata.namespace,
    service.metadata.name,
    [
      { op: "test", path: "/metadata/resourceVersion", value: service.metadata.resourceVersion },
      { op: "add", path: "/metadata/finalizers", value: next },
    ],
    PATCH_JSON,
  );
}
