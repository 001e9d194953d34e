import { badRequest, methodNotAllowed, methodNotSupported, notAcceptable } from "../api/errors/index.js";
import type { KubeObject } from "../api/types.js";
import { defineResource } from "../resources/define.js";
import type { ResourceDefinition } from "../registry/rest/resource-definition.js";
import type { RequestOptions, ResourceStore } from "../registry/types.js";
import { fieldInvalid, invalidError, type FieldError } from "../validation/index.js";
import type { HandlerStage } from "./filters/stages.js";
import { readBody } from "./body.js";
import type { RequestContext } from "./context.js";
import { decodeBody } from "./handlers/decode/decode-object.js";
import { negotiateObjectFormat } from "./handlers/negotiation/negotiation.js";
import { writeJson } from "./handlers/responsewriters/respond.js";
import type { ServedResource } from "./served-resource.js";
import { reviewUserInfo } from "../authn/token-review.js";
import { ANONYMOUS, type UserInfo } from "../authn/user.js";

export { ANONYMOUS, type UserInfo } from "../authn/user.js";

/** What is being asked for: resource attributes (verb on a resource) or non-resource ones (verb on a path). */
export interface AuthorizationAttributes {
  verb: string;
  group?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  path?: string;
}

export interface AuthorizationDecision {
  allowed: boolean;
  denied?: boolean;
  reason?: string;
}

export interface ResourceRuleInfo {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

export interface NonResourceRuleInfo {
  verbs: string[];
  nonResourceURLs?: string[];
}

/** What a user may do in a namespace, as far as an authorizer can list it (upstream `RuleResolver`). */
export interface RulesInfo {
  resourceRules: ResourceRuleInfo[];
  nonResourceRules: NonResourceRuleInfo[];
  /** The list may lack rules (an authorizer that cannot enumerate them). */
  incomplete: boolean;
  evaluationError?: string;
}

/** Decides requests; the seam where RBAC plugs in. */
export interface Authorizer {
  authorize(user: UserInfo, attributes: AuthorizationAttributes): Promise<AuthorizationDecision> | AuthorizationDecision;
  /** The rules `user` holds in `namespace`, for SelfSubjectRulesReview; without it the answer is empty and incomplete. */
  rulesFor?(user: UserInfo, namespace: string): Promise<RulesInfo> | RulesInfo;
}

/** kube-apiserver's `--authorization-mode=AlwaysAllow`: what this server does until an authorizer is configured. */
export const alwaysAllow: Authorizer = {
  authorize: () => ({ allowed: true }),
  rulesFor: () => ({
    resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }],
    nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
    incomplete: false,
  }),
};

const SELF_REVIEW = "/apis/authentication.k8s.io/v1/selfsubjectreviews";

/**
 * Serves `auth whoami` (SelfSubjectReview) for the request's user. The authorization reviews are
 * resources of their own (`accessReviewResources`).
 */
export function accessReviewStage(options: { maxBodyBytes: number }): HandlerStage {
  return {
    name: "access-reviews",
    handle(ctx) {
      if (ctx.path !== SELF_REVIEW) return false;
      if (ctx.method !== "POST") throw methodNotAllowed(ctx.method, ctx.path);
      // Reviews have no Table form: a client that accepts only Table gets 406, as upstream.
      if (negotiateObjectFormat(ctx.req.headers.accept, false) === undefined) throw notAcceptable();
      return serveSelfReview(ctx, options);
    },
  };
}

async function serveSelfReview(ctx: RequestContext, options: { maxBodyBytes: number }): Promise<true> {
  await readReview(ctx, options);
  writeJson(ctx, 201, {
    kind: "SelfSubjectReview",
    apiVersion: "authentication.k8s.io/v1",
    metadata: {},
    status: { userInfo: reviewUserInfo(ctx.user) },
  });
  return true;
}

async function readReview(ctx: RequestContext, options: { maxBodyBytes: number }): Promise<Record<string, unknown>> {
  const body = await readBody(ctx.req, options.maxBodyBytes);
  const parsed = decodeBody(body, ctx.req.headers["content-type"], ctx.protobuf).value;
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw badRequest("the body of a review must be an object");
  return parsed as Record<string, unknown>;
}

// ---- authorization.k8s.io/v1 reviews (pkg/registry/authorization) ----

const AUTHZ_GROUP = "authorization.k8s.io";

interface ReviewSpec {
  resourceAttributes?: Record<string, unknown>;
  nonResourceAttributes?: Record<string, unknown>;
  user?: string;
  groups?: string[];
  uid?: string;
  extra?: Record<string, string[]>;
  namespace?: string;
}

function reviewDefinition(kind: string, plural: string, scope: "Namespaced" | "Cluster"): ResourceDefinition {
  return defineResource<KubeObject>({
    group: AUTHZ_GROUP,
    version: "v1",
    kind,
    plural,
    singular: plural.slice(0, -1),
    scope,
    restVerbs: ["create"],
  });
}

export const subjectAccessReviewsResource = reviewDefinition("SubjectAccessReview", "subjectaccessreviews", "Cluster");
export const localSubjectAccessReviewsResource = reviewDefinition("LocalSubjectAccessReview", "localsubjectaccessreviews", "Namespaced");
export const selfSubjectAccessReviewsResource = reviewDefinition("SelfSubjectAccessReview", "selfsubjectaccessreviews", "Cluster");
export const selfSubjectRulesReviewsResource = reviewDefinition("SelfSubjectRulesReview", "selfsubjectrulesreviews", "Cluster");

function str(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** `ResourceAttributesFrom` / `NonResourceAttributesFrom`. */
function attributesOf(spec: ReviewSpec): AuthorizationAttributes {
  const r = spec.resourceAttributes;
  if (r !== undefined && r !== null) {
    const attributes: AuthorizationAttributes = {
      verb: str(r["verb"]) ?? "",
      group: str(r["group"]) ?? "",
      resource: str(r["resource"]) ?? "",
    };
    for (const key of ["subresource", "namespace", "name"] as const) {
      const value = str(r[key]);
      if (value !== undefined) attributes[key] = value;
    }
    return attributes;
  }
  const n = spec.nonResourceAttributes ?? {};
  return { verb: str(n["verb"]) ?? "", path: str(n["path"]) ?? "" };
}

/** `ValidateSubjectAccessReviewSpec` and its self/local variants. */
function validateReviewSpec(spec: ReviewSpec, needsSubject: boolean): FieldError[] {
  const errors: FieldError[] = [];
  const hasResource = spec.resourceAttributes !== undefined && spec.resourceAttributes !== null;
  const hasNonResource = spec.nonResourceAttributes !== undefined && spec.nonResourceAttributes !== null;
  if (hasResource && hasNonResource)
    errors.push(
      fieldInvalid("spec.nonResourceAttributes", spec.nonResourceAttributes, "cannot be specified in combination with resourceAttributes"),
    );
  if (!hasResource && !hasNonResource)
    errors.push(
      fieldInvalid(
        "spec.resourceAttributes",
        spec.nonResourceAttributes ?? null,
        "exactly one of nonResourceAttributes or resourceAttributes must be specified",
      ),
    );
  if (needsSubject && (spec.user ?? "") === "" && (spec.groups ?? []).length === 0)
    errors.push(fieldInvalid("spec.user", spec.user ?? "", "at least one of user or group must be specified"));
  return errors;
}

/** The object's metadata must be empty (but for the namespace of a LocalSubjectAccessReview). */
function validateEmptyMeta(object: KubeObject, allowNamespace: boolean): FieldError[] {
  const { managedFields: _m, namespace, ...rest } = object.metadata ?? {};
  const extra = allowNamespace || namespace === undefined || namespace === "" ? rest : { ...rest, namespace };
  return Object.values(extra).some((v) => v !== undefined && v !== "" && v !== null)
    ? [fieldInvalid("metadata", object.metadata, "must be empty")]
    : [];
}

function reviewStore(
  definition: ResourceDefinition,
  evaluate: (namespace: string | undefined, review: KubeObject, user: UserInfo) => Promise<KubeObject>,
): ResourceStore {
  const unsupported = (verb: string) => () =>
    Promise.reject(methodNotSupported({ group: definition.group, resource: definition.plural }, verb));
  return {
    definition,
    get: unsupported("get"),
    list: unsupported("list"),
    watch: unsupported("watch"),
    update: unsupported("update"),
    guaranteedUpdate: unsupported("patch"),
    delete: unsupported("delete"),
    create: (namespace, object, options?: RequestOptions) => evaluate(namespace, object, options?.user ?? ANONYMOUS),
  };
}

function decisionStatus(decision: AuthorizationDecision): Record<string, unknown> {
  const status: Record<string, unknown> = { allowed: decision.allowed };
  if (decision.denied === true) status["denied"] = true;
  if (decision.reason) status["reason"] = decision.reason;
  return status;
}

/** The user a SubjectAccessReview asks about. */
function subjectOf(spec: ReviewSpec): UserInfo {
  return { name: spec.user ?? "", groups: [...(spec.groups ?? [])] };
}

/**
 * SubjectAccessReview, LocalSubjectAccessReview, SelfSubjectAccessReview and SelfSubjectRulesReview
 * (pkg/registry/authorization): create-only resources answered by `authorizer` and never stored.
 */
export function accessReviewResources(authorizer: Authorizer): ServedResource[] {
  const answer = (review: KubeObject, spec: ReviewSpec, status: Record<string, unknown>): KubeObject => ({
    apiVersion: "authorization.k8s.io/v1",
    kind: review.kind ?? "",
    metadata: review.metadata ?? {},
    spec,
    status,
  });
  const specOf = (review: KubeObject) => (review["spec"] ?? {}) as ReviewSpec;
  const invalid = (kind: string, errors: FieldError[]) => invalidError({ group: AUTHZ_GROUP, kind }, "", errors);

  const sar = reviewStore(subjectAccessReviewsResource, async (_ns, review) => {
    const spec = specOf(review);
    const errors = [...validateReviewSpec(spec, true), ...validateEmptyMeta(review, false)];
    if (errors.length > 0) throw invalid("SubjectAccessReview", errors);
    return answer(review, spec, decisionStatus(await authorizer.authorize(subjectOf(spec), attributesOf(spec))));
  });
  const lsar = reviewStore(localSubjectAccessReviewsResource, async (namespace, review) => {
    const spec = specOf(review);
    const errors = [...validateReviewSpec(spec, true), ...validateEmptyMeta(review, true)];
    if (spec.nonResourceAttributes !== undefined && spec.nonResourceAttributes !== null)
      errors.push(fieldInvalid("spec.nonResourceAttributes", spec.nonResourceAttributes, "disallowed on this kind of request"));
    if (errors.length > 0) throw invalid("LocalSubjectAccessReview", errors);
    if (str(spec.resourceAttributes?.["namespace"]) !== namespace)
      throw badRequest(`spec.resourceAttributes.namespace must match namespace: ${namespace ?? ""}`);
    return answer(review, spec, decisionStatus(await authorizer.authorize(subjectOf(spec), attributesOf(spec))));
  });
  const ssar = reviewStore(selfSubjectAccessReviewsResource, async (_ns, review, user) => {
    const spec = specOf(review);
    const errors = [...validateReviewSpec(spec, false), ...validateEmptyMeta(review, false)];
    if (errors.length > 0) throw invalid("SelfSubjectAccessReview", errors);
    return answer(review, spec, decisionStatus(await authorizer.authorize(user, attributesOf(spec))));
  });
  const ssrr = reviewStore(selfSubjectRulesReviewsResource, async (_ns, review, user) => {
    const spec = specOf(review);
    const namespace = spec.namespace ?? "";
    if (namespace === "") throw badRequest("no namespace on request");
    const rules: RulesInfo = authorizer.rulesFor
      ? await authorizer.rulesFor(user, namespace)
      : { resourceRules: [], nonResourceRules: [], incomplete: true };
    const status: Record<string, unknown> = {
      resourceRules: rules.resourceRules,
      nonResourceRules: rules.nonResourceRules,
      incomplete: rules.incomplete,
    };
    if (rules.evaluationError) status["evaluationError"] = rules.evaluationError;
    return answer(review, spec, status);
  });
  return [
    { definition: localSubjectAccessReviewsResource, store: lsar },
    { definition: selfSubjectAccessReviewsResource, store: ssar },
    { definition: selfSubjectRulesReviewsResource, store: ssrr },
    { definition: subjectAccessReviewsResource, store: sar },
  ];
}
