import { ControlPlaneError, badRequest, conflict, type KubeObject, type Status } from "@kubekit/generic-controlplane";
import type { ResourceStore } from "@kubekit/generic-controlplane/registry";
import type { RequestContext, ResourceRequestInfo } from "@kubekit/generic-controlplane/server";
import { nowRFC3339 } from "../controllers/util.js";
import type { Pod } from "../resources/pods.js";
import { readJsonObject, writeJson } from "./respond.js";

/**
 * `POST pods/<name>/binding` (upstream's BindingREST): sets `spec.nodeName` once and marks the pod
 * `PodScheduled`. `bindings` is a store over the pods whose strategy lets `spec.nodeName` be set.
 */
export async function serveBinding(
  ctx: RequestContext,
  info: ResourceRequestInfo,
  bindings: ResourceStore,
  maxBodyBytes: number,
): Promise<void> {
  if (info.verb !== "create")
    throw new ControlPlaneError(
      "MethodNotAllowed",
      `the server does not allow this method on the requested resource (${ctx.method} ${ctx.path})`,
    );
  const binding = (await readJsonObject(ctx, maxBodyBytes, "v1, Kind=Binding")) as KubeObject & {
    target?: { kind?: string; name?: string };
  };
  const nodeName = binding.target?.name ?? "";
  if (binding.target?.kind !== undefined && binding.target.kind !== "" && binding.target.kind !== "Node") {
    throw badRequest(`Binding "${info.name}": target.kind must be Node, not ${JSON.stringify(binding.target.kind)}`);
  }
  if (nodeName === "") throw badRequest(`Binding "${info.name}": target.name is required`);
  const refuse = (why: string) => conflict({ group: "", resource: "pods/binding" }, info.name, why);
  await bindings.guaranteedUpdate(
    info.namespace,
    info.name,
    (current) => {
      const pod = current as Pod;
      if (pod.metadata?.deletionTimestamp) throw refuse(`pod ${info.name} is being deleted, cannot be assigned to a host`);
      if (pod.spec?.nodeName) throw refuse(`pod ${info.name} is already assigned to node "${pod.spec.nodeName}"`);
      pod.spec = { ...(pod.spec ?? {}), nodeName };
      const conditions = (pod.status?.conditions ?? []).filter((c) => c.type !== "PodScheduled");
      pod.status = {
        ...(pod.status ?? {}),
        conditions: [...conditions, { type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: nowRFC3339() }],
      };
      return pod;
    },
    ctx.dryRun ? { dryRun: true } : {},
  );
  const status: Status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 };
  writeJson(ctx, 201, status);
}
