import { ControlPlaneError, badRequest, type DeleteOptions, type KubeObject, type Status } from "@kubekit/generic-controlplane";
import type { ResourceStore } from "@kubekit/generic-controlplane/registry";
import type { RequestContext, ResourceRequestInfo } from "@kubekit/generic-controlplane/server";
import { readJsonObject, writeJson } from "./respond.js";

/**
 * `POST pods/<name>/eviction` (upstream's EvictionREST), what `kubectl drain` sends: a policy/v1
 * (or v1beta1) Eviction deletes the pod with the eviction's `deleteOptions`, gracefully as any
 * DELETE. PodDisruptionBudgets are not served here, so no budget ever refuses an eviction (upstream
 * would answer 429 `Cannot evict pod as it would violate the pod's disruption budget.`).
 */
export async function serveEviction(ctx: RequestContext, info: ResourceRequestInfo, pods: ResourceStore, maxBodyBytes: number): Promise<void> {
  if (info.verb !== "create") throw new ControlPlaneError("MethodNotAllowed", `the server does not allow this method on the requested resource (${ctx.method} ${ctx.path})`);
  const eviction = (await readJsonObject(ctx, maxBodyBytes, "policy/v1, Kind=Eviction")) as KubeObject & { deleteOptions?: DeleteOptions | null };
  const name = eviction.metadata?.name;
  if (name !== undefined && name !== "" && name !== info.name) throw badRequest("name in URL does not match name in Eviction object");
  const namespace = eviction.metadata?.namespace;
  if (namespace !== undefined && namespace !== "" && namespace !== info.namespace) throw badRequest("namespace in URL does not match namespace in Eviction object");
  const deleteOptions: DeleteOptions = { ...(eviction.deleteOptions ?? {}) };
  if (ctx.dryRun) deleteOptions.dryRun = ["All"];
  await pods.delete(info.namespace, info.name, deleteOptions, ctx.dryRun ? { dryRun: true } : {});
  const status: Status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 };
  writeJson(ctx, 201, status);
}
