import { applyMergePatch } from "@kubekit/apimachinery";
import { ControlPlaneError, conflict, invalid, type KubeObject } from "@kubekit/generic-controlplane";
import type { ServedResource, RequestContext, ResourceRequestInfo } from "@kubekit/generic-controlplane/server";
import { selectorString, type LabelSelector } from "../selector.js";
import { readJsonObject, writeJson } from "./respond.js";

interface Workload extends KubeObject {
  spec?: { replicas?: number; selector?: LabelSelector };
  status?: { replicas?: number };
}

interface Scale extends KubeObject {
  spec?: { replicas?: number };
}

/** The autoscaling/v1 Scale of a workload (upstream's ScaleREST for deployments and replicasets). */
export function scaleOf(workload: Workload): Scale {
  const meta = workload.metadata ?? {};
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: {
      name: meta.name ?? "",
      namespace: meta.namespace ?? "",
      ...(meta.uid !== undefined ? { uid: meta.uid } : {}),
      ...(meta.resourceVersion !== undefined ? { resourceVersion: meta.resourceVersion } : {}),
      ...(meta.creationTimestamp !== undefined ? { creationTimestamp: meta.creationTimestamp } : {}),
    },
    spec: { replicas: workload.spec?.replicas ?? 0 },
    status: { replicas: workload.status?.replicas ?? 0, selector: selectorOf(workload) },
  };
}

/** The selector as Scale reports it; a ReplicationController's is a plain label map. */
function selectorOf(workload: Workload): string {
  const selector = workload.spec?.selector;
  if (selector === undefined) return "";
  if (workload.kind === "ReplicationController") return selectorString({ matchLabels: selector as Record<string, string> });
  return selectorString(selector);
}

const PATCH_TYPES = ["application/merge-patch+json", "application/strategic-merge-patch+json"];

/** `GET`, `PUT` and `PATCH` (merge and strategic merge) on `<workload>/scale`. */
export async function serveScale(
  ctx: RequestContext,
  info: ResourceRequestInfo,
  served: ServedResource,
  maxBodyBytes: number,
): Promise<void> {
  const { definition, store } = served;
  if (info.verb === "get") {
    writeJson(ctx, 200, scaleOf(await store.get(info.namespace, info.name)));
    return;
  }
  if (info.verb !== "update" && info.verb !== "patch")
    throw new ControlPlaneError(
      "MethodNotAllowed",
      `the server does not allow this method on the requested resource (${ctx.method} ${ctx.path})`,
    );
  const contentType = (ctx.req.headers["content-type"] ?? "").split(";")[0]!.trim();
  if (info.verb === "patch" && !PATCH_TYPES.includes(contentType)) {
    throw new ControlPlaneError(
      "UnsupportedMediaType",
      `the body of the request was in an unknown format - accepted media types include: ${PATCH_TYPES.join(", ")}`,
    );
  }
  const body = await readJsonObject(ctx, maxBodyBytes, "autoscaling/v1, Kind=Scale");
  const fieldManager = ctx.query.get("fieldManager");
  const updated = await store.guaranteedUpdate(
    info.namespace,
    info.name,
    (current) => {
      const workload = current as Workload;
      const scale = (info.verb === "patch" ? applyMergePatch(scaleOf(workload), body) : body) as Scale;
      const precondition = scale.metadata?.resourceVersion;
      if (precondition && precondition !== workload.metadata?.resourceVersion) {
        throw conflict({ group: definition.group, resource: definition.plural }, info.name);
      }
      const replicas = scale.spec?.replicas;
      if (typeof replicas !== "number" || !Number.isInteger(replicas) || replicas < 0) {
        throw invalid({ group: "autoscaling", kind: "Scale" }, info.name, [
          {
            reason: "FieldValueInvalid",
            field: "spec.replicas",
            message: `Invalid value: ${JSON.stringify(replicas ?? null)}: must be greater than or equal to 0`,
          },
        ]);
      }
      return { ...workload, spec: { ...(workload.spec ?? {}), replicas } };
    },
    { ...(ctx.dryRun ? { dryRun: true } : {}), ...(fieldManager ? { fieldManager } : {}) },
  );
  writeJson(ctx, 200, scaleOf(updated));
}
