import { randomUUID } from "node:crypto";
import type { KubeObject, Status } from "../../../api/types.js";
import type { ResourceDefinition } from "../../../registry/rest/resource-definition.js";
import type { AdmissionUserInfo } from "../../request-context.js";
import type { AdmissionAttributes } from "../../types.js";
import { setOwn } from "../../../patch/json-value.js";
import { parseExactJson } from "../../../api/exact-json.js";

export const ADMISSION_REVIEW_API_VERSION = "admission.k8s.io/v1";

/** The group/version/resource and kind a webhook is sent: the request's own, or an equivalent one's (matchPolicy Equivalent). */
export interface Invocation {
  definition: ResourceDefinition;
  /** The object and old object in `definition`'s version. */
  object: KubeObject | undefined;
  oldObject: KubeObject | undefined;
}

export interface AdmissionReviewRequest {
  uid: string;
  kind: { group: string; version: string; kind: string };
  resource: { group: string; version: string; resource: string };
  subResource?: string;
  requestKind: { group: string; version: string; kind: string };
  requestResource: { group: string; version: string; resource: string };
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  operation: AdmissionAttributes["operation"];
  userInfo: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  object: KubeObject | null;
  oldObject: KubeObject | null;
  dryRun: boolean;
  options: Record<string, unknown> | null;
}

export interface AdmissionReview {
  apiVersion: string;
  kind: "AdmissionReview";
  request: AdmissionReviewRequest;
}

const kindOf = (d: ResourceDefinition) => ({ group: d.group, version: d.version, kind: d.kind });
const resourceOf = (d: ResourceDefinition) => ({ group: d.group, version: d.version, resource: d.plural });

/** Upstream `CreateV1AdmissionReview`: an anonymous request has `system:anonymous` in `system:unauthenticated`. */
export function admissionReview(
  attributes: AdmissionAttributes,
  invocation: Invocation,
  user: AdmissionUserInfo | undefined,
): AdmissionReview {
  const who = user ?? { name: "system:anonymous", groups: ["system:unauthenticated"] };
  const request: AdmissionReviewRequest = {
    uid: randomUUID(),
    kind: kindOf(invocation.definition),
    resource: resourceOf(invocation.definition),
    requestKind: kindOf(attributes.definition),
    requestResource: resourceOf(attributes.definition),
    operation: attributes.operation,
    userInfo: {
      username: who.name,
      ...(who.uid === undefined ? {} : { uid: who.uid }),
      groups: [...who.groups],
      ...(who.extra === undefined ? {} : { extra: who.extra }),
    },
    object: invocation.object ?? null,
    oldObject: invocation.oldObject ?? null,
    dryRun: attributes.dryRun,
    options: attributes.options ?? null,
  };
  if (attributes.subresource !== "") {
    request.subResource = attributes.subresource;
    request.requestSubResource = attributes.subresource;
  }
  if (attributes.name !== "") request.name = attributes.name;
  const namespace =
    attributes.namespace ??
    (attributes.definition.group === "" && attributes.definition.plural === "namespaces" ? attributes.name : undefined);
  if (namespace !== undefined && namespace !== "") request.namespace = namespace;
  return { apiVersion: ADMISSION_REVIEW_API_VERSION, kind: "AdmissionReview", request };
}

/** What a webhook answered, checked. */
export interface AdmissionResult {
  allowed: boolean;
  result: Partial<Status> | undefined;
  /** The JSON patch operations (mutating webhooks only). */
  patch: unknown[] | undefined;
  auditAnnotations: Record<string, string>;
  warnings: string[];
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * Upstream `VerifyAdmissionResponse` for AdmissionReview v1: the response must be there, echo the
 * request uid and come as `admission.k8s.io/v1, Kind=AdmissionReview`; a patch needs
 * `patchType: JSONPatch` and only mutating webhooks may send one. Throws the reason as an Error.
 */
export function verifyAdmissionResponse(uid: string, mutating: boolean, review: unknown): AdmissionResult {
  const body = isRecord(review) ? review : {};
  const response = body.response;
  if (!isRecord(response)) throw new Error("webhook response was absent");
  const responseUid = typeof response.uid === "string" ? response.uid : "";
  if (responseUid !== uid) throw new Error(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(responseUid)}`);
  const apiVersion = typeof body.apiVersion === "string" ? body.apiVersion : "";
  const kind = typeof body.kind === "string" ? body.kind : "";
  if (apiVersion !== ADMISSION_REVIEW_API_VERSION || kind !== "AdmissionReview") {
    // Go's GroupVersionKind.String(): `<group>/<version>, Kind=<kind>`, the group empty for core.
    const got = `${apiVersion.includes("/") ? apiVersion : `/${apiVersion}`}, Kind=${kind}`;
    throw new Error(`expected webhook response of ${ADMISSION_REVIEW_API_VERSION}, Kind=AdmissionReview, got ${got}`);
  }
  const patchType = typeof response.patchType === "string" ? response.patchType : "";
  const rawPatch = typeof response.patch === "string" ? response.patch : "";
  let patch: unknown[] | undefined;
  if (rawPatch !== "") {
    if (patchType === "") throw new Error("webhook returned response.patch but not response.patchType");
    if (!mutating) throw new Error("validating webhook may not return response.patch");
    if (patchType !== "JSONPatch") throw new Error(`webhook returned invalid response.patchType of ${JSON.stringify(patchType)}`);
    const decoded: unknown = parseExactJson(Buffer.from(rawPatch, "base64").toString("utf8"));
    if (!Array.isArray(decoded)) throw new Error("response.patch is not a JSON patch (an array of operations)");
    patch = decoded;
  }
  const annotations: Record<string, string> = {};
  if (isRecord(response.auditAnnotations)) {
    for (const [key, value] of Object.entries(response.auditAnnotations)) if (typeof value === "string") setOwn(annotations, key, value);
  }
  return {
    allowed: response.allowed === true,
    result: isRecord(response.status) ? response.status : undefined,
    patch,
    auditAnnotations: annotations,
    warnings: Array.isArray(response.warnings) ? response.warnings.filter((w): w is string => typeof w === "string") : [],
  };
}
