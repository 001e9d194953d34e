import type { KubeObject } from "../api/types.js";
import { badRequest, conflict, invalid, methodNotAllowed, unsupportedMediaType } from "../api/errors/index.js";
import { applyJsonPatch, applyMergePatch } from "../patch/index.js";
import type { ResourceStore } from "../registry/types.js";
import { readBody } from "../server/body.js";
import type { RequestContext } from "../server/context.js";
import { writeJson } from "../server/handlers/responsewriters/respond.js";
import type { ResourceRequestInfo } from "../server/request-info.js";
import { fieldInvalid, toStatusCauses, type FieldError } from "../validation/index.js";
import type { CustomResourceSubresourceScale } from "./types.js";
import { cloneJson, ownValue, setOwn } from "../patch/json-value.js";

/** The `scale` subresource as discovery lists it: it speaks autoscaling/v1 Scale, which `kubectl scale` looks up. */
export const SCALE_SUBRESOURCE = {
  name: "scale",
  verbs: ["get", "patch", "update"],
  kind: { group: "autoscaling", version: "v1", kind: "Scale" },
};

const MAX_INT32 = 2147483647;
const PATCH_TYPES = ["application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json"];

function segments(path: string): string[] {
  return path.replace(/^\./, "").split(".");
}

function readPath(object: unknown, path: string): unknown {
  let current = object;
  for (const segment of segments(path)) {
    if (current === null || typeof current !== "object" || Array.isArray(current)) return undefined;
    current = ownValue(current as Record<string, unknown>, segment);
  }
  return current;
}

function writePath(object: Record<string, unknown>, path: string, value: unknown): void {
  const parts = segments(path);
  let current = object;
  for (const segment of parts.slice(0, -1)) {
    let next = ownValue(current, segment);
    if (next === undefined || next === null || typeof next !== "object" || Array.isArray(next)) setOwn(current, segment, (next = {}));
    current = next as Record<string, unknown>;
  }
  setOwn(current, parts.at(-1)!, value);
}

/** Go's name for a JSON value's type, as unstructured accessors word their errors. */
function goTypeName(value: unknown): string {
  if (typeof value === "string") return "string";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return "float64";
  if (Array.isArray(value)) return "[]interface {}";
  return "map[string]interface {}";
}

/** upstream `validateScaleSpec`/`validateScaleStatus`: the replica counts are int32s, the selector a string. */
export function scaleErrors(object: KubeObject, scale: CustomResourceSubresourceScale): FieldError[] {
  const errors: FieldError[] = [];
  const replicas = (path: string | undefined) => {
    if (!path) return;
    const value = readPath(object, path);
    if (value === undefined || value === null) return;
    if (typeof value !== "number" || !Number.isInteger(value)) {
      errors.push(
        fieldInvalid(path, 0, `${path} accessor error: ${JSON.stringify(value)} is of the type ${goTypeName(value)}, expected int64`),
      );
    } else if (value < 0) errors.push(fieldInvalid(path, value, "should be a non-negative integer"));
    else if (value > MAX_INT32) errors.push(fieldInvalid(path, value, `should be less than or equal to ${MAX_INT32}`));
  };
  replicas(scale.specReplicasPath);
  replicas(scale.statusReplicasPath);
  if (scale.labelSelectorPath) {
    const selector = readPath(object, scale.labelSelectorPath);
    if (selector !== undefined && selector !== null && typeof selector !== "string") {
      errors.push(
        fieldInvalid(
          scale.labelSelectorPath,
          "",
          `${scale.labelSelectorPath} accessor error: ${JSON.stringify(selector)} is of the type ${goTypeName(selector)}, expected string`,
        ),
      );
    }
  }
  return errors;
}

/** upstream `scaleFromCustomResource`: the autoscaling/v1 Scale of a custom resource. */
export function scaleOf(object: KubeObject, scale: CustomResourceSubresourceScale): KubeObject {
  const meta = object.metadata ?? {};
  const number = (path: string | undefined) => {
    const value = path ? readPath(object, path) : undefined;
    return typeof value === "number" ? value : 0;
  };
  const selector = scale.labelSelectorPath ? readPath(object, scale.labelSelectorPath) : undefined;
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: {
      name: meta.name ?? "",
      ...(meta.namespace !== undefined ? { namespace: meta.namespace } : {}),
      ...(meta.uid !== undefined ? { uid: meta.uid } : {}),
      ...(meta.resourceVersion !== undefined ? { resourceVersion: meta.resourceVersion } : {}),
      ...(meta.creationTimestamp !== undefined ? { creationTimestamp: meta.creationTimestamp } : {}),
    },
    spec: { replicas: number(scale.specReplicasPath) },
    status: { replicas: number(scale.statusReplicasPath), selector: typeof selector === "string" ? selector : "" },
  };
}

function parseBody(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch (error) {
    throw badRequest(`couldn't get version/kind; json parse error: ${(error as Error).message}`);
  }
}

/** upstream `ValidateScale`. */
function replicasOf(scale: KubeObject, name: string): number {
  const replicas = (scale["spec"] as { replicas?: unknown } | undefined)?.replicas ?? 0;
  if (typeof replicas !== "number" || !Number.isInteger(replicas) || replicas < 0) {
    throw invalid(
      { group: "autoscaling", kind: "Scale" },
      name,
      toStatusCauses([fieldInvalid("spec.replicas", replicas, "must be greater than or equal to 0")]),
    );
  }
  return replicas;
}

/**
 * `GET`, `PUT` and `PATCH` on `<custom resource>/scale` (upstream's customresource ScaleREST):
 * reads and writes the replicas at `specReplicasPath` through the resource's own store.
 */
export async function serveScale(
  ctx: RequestContext,
  info: ResourceRequestInfo,
  store: ResourceStore,
  scale: CustomResourceSubresourceScale,
  maxBodyBytes: number,
): Promise<void> {
  if (info.verb === "get") {
    writeJson(ctx, 200, scaleOf(await store.get(info.namespace, info.name), scale));
    return;
  }
  if (info.verb !== "update" && info.verb !== "patch") throw methodNotAllowed(ctx.method, ctx.path);
  const contentType = (ctx.req.headers["content-type"] ?? "application/json").split(";")[0]!.trim();
  if (info.verb === "patch" && !PATCH_TYPES.includes(contentType)) throw unsupportedMediaType(contentType, PATCH_TYPES);
  const body = parseBody(await readBody(ctx.req, maxBodyBytes));
  const fieldManager = ctx.query.get("fieldManager");
  const { group, plural } = store.definition;
  const updated = await store.guaranteedUpdate(
    info.namespace,
    info.name,
    (current) => {
      const before = scaleOf(current, scale);
      let requested: KubeObject;
      if (info.verb === "update") requested = body as KubeObject;
      else if (contentType === "application/json-patch+json") requested = applyJsonPatch<KubeObject>(before, body);
      else requested = applyMergePatch<KubeObject>(before, body);
      const precondition = requested.metadata?.resourceVersion;
      if (precondition && precondition !== current.metadata?.resourceVersion) throw conflict({ group, resource: plural }, info.name);
      const replicas = replicasOf(requested, info.name);
      const next = cloneJson(current);
      writePath(next, scale.specReplicasPath ?? ".spec.replicas", replicas);
      return next;
    },
    { subresource: "scale", ...(ctx.dryRun ? { dryRun: true } : {}), ...(fieldManager ? { fieldManager } : {}) },
  );
  writeJson(ctx, 200, scaleOf(updated, scale));
}
