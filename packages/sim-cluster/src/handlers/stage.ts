import type { ResourceStore } from "@kubekit/generic-controlplane/registry";
import type { HandlerStage, ServedResource } from "@kubekit/generic-controlplane/server";
import { serveBinding } from "./binding.js";
import { admitConnect, isStreamingSubresource, serveStreaming } from "./connect.js";
import { serveEviction } from "./eviction.js";
import { serveNodeProxy } from "./node-proxy.js";
import { servePodLog } from "./pod-log.js";
import { serveProxy } from "./proxy.js";
import { serveScale } from "./scale.js";

export interface SubresourceStores {
  /** Pods as the binding writes them (a strategy that lets `spec.nodeName` be set). */
  bindings: ResourceStore;
  /** Pods as a DELETE sees them (graceful), for evictions. */
  pods: ResourceStore;
  /** PodDisruptionBudgets, which evictions check and take from. */
  budgets: ResourceStore | undefined;
  /** Services and their Endpoints, which `services/proxy` reads. */
  services: ResourceStore;
  endpoints: ResourceStore;
  /** Nodes, whose kubelets `nodes/proxy` answers for. */
  nodes: ResourceStore;
  /** The served resource behind a `scale`: deployments, replicasets and replicationcontrollers. */
  scalable(group: string, plural: string): ServedResource | undefined;
}

/**
 * Serves `pods/binding`, `pods/eviction`, `pods/log`, `pods/exec`, `pods/attach`, `pods/portforward`,
 * `pods/proxy`, `services/proxy`, `nodes/proxy` (the connect ones after CONNECT admission) and `<deployments|replicasets|replicationcontrollers>/scale`, which upstream serves from those
 * resources' REST storage and the generic handlers do not: a stage ahead of dispatch answers
 * them and lets every other request through. `stores` is read per request, so the stage can be
 * handed to the control plane before the stores exist.
 */
export function subresourceStage(stores: () => SubresourceStores | undefined, maxBodyBytes: number): HandlerStage {
  return {
    name: "sim-cluster-subresources",
    async handle(ctx) {
      const info = ctx.info;
      if (info === undefined || !info.isResourceRequest || info.name === "") return false;
      const ready = stores();
      if (ready === undefined) return false;
      if (info.group === "" && info.resource === "pods" && info.subresource === "binding") {
        await serveBinding(ctx, info, ready.bindings, maxBodyBytes);
        return true;
      }
      if (info.group === "" && info.resource === "pods" && info.subresource === "eviction") {
        await serveEviction(ctx, info, { pods: ready.pods, budgets: ready.budgets }, maxBodyBytes);
        return true;
      }
      if (info.group === "" && info.resource === "pods" && info.subresource === "log") {
        await servePodLog(ctx, info, ready.pods);
        return true;
      }
      if (info.group === "" && info.resource === "pods" && isStreamingSubresource(info.subresource)) {
        await admitConnect(ready.pods, ctx, info);
        await serveStreaming(ctx, info, ready.pods);
        return true;
      }
      if (info.group === "" && (info.resource === "pods" || info.resource === "services") && info.subresource === "proxy") {
        await admitConnect(info.resource === "pods" ? ready.pods : ready.services, ctx, info);
        await serveProxy(ctx, info, { pods: ready.pods, services: ready.services, endpoints: ready.endpoints });
        return true;
      }
      if (info.group === "" && info.resource === "nodes" && info.subresource === "proxy") {
        await admitConnect(ready.nodes, ctx, info);
        await serveNodeProxy(ctx, info, { nodes: ready.nodes, pods: ready.pods });
        return true;
      }
      const scalable =
        (info.group === "apps" &&
          (info.resource === "deployments" || info.resource === "replicasets" || info.resource === "statefulsets")) ||
        (info.group === "" && info.resource === "replicationcontrollers");
      if (info.version === "v1" && info.subresource === "scale" && scalable) {
        const served = ready.scalable(info.group, info.resource);
        if (served === undefined) return false;
        await serveScale(ctx, info, served, maxBodyBytes);
        return true;
      }
      return false;
    },
  };
}
