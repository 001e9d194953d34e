import { badRequest, methodNotAllowed, notAcceptable } from "../api/errors/index.js";
import type { HandlerStage } from "./filters/stages.js";
import { readBody } from "./body.js";
import type { RequestContext } from "./context.js";
import { decodeBody } from "./handlers/decode/decode-object.js";
import { negotiateObjectFormat } from "./handlers/negotiation/negotiation.js";
import { writeJson } from "./handlers/responsewriters/respond.js";
import { reviewUserInfo } from "../authn/token-review.js";

export interface UserInfo {
  /** The user name, e.g. `jane` or `system:serviceaccount:default:builder`. */
  name: string;
  /** The groups the user is in, e.g. `system:authenticated`. */
  groups: string[];
  /** A unique value that identifies the user across time (a ServiceAccount's uid, a token file's uid column). */
  uid?: string;
  /** Additional information from the authenticator (e.g. a service account token's `authentication.kubernetes.io/credential-id`). */
  extra?: Record<string, string[]>;
}

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

/** Decides requests; the seam where RBAC plugs in. */
export interface Authorizer {
  authorize(user: UserInfo, attributes: AuthorizationAttributes): Promise<AuthorizationDecision> | AuthorizationDecision;
}

/** kube-apiserver's `--authorization-mode=AlwaysAllow`: what this server does until an authorizer is configured. */
export const alwaysAllow: Authorizer = { authorize: () => ({ allowed: true }) };

/** Who a request is from when no authentication stage has set `ctx.user`. */
export const ANONYMOUS: UserInfo = { name: "system:anonymous", groups: ["system:unauthenticated"] };

const SSAR = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
const SSRR = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews";
const SELF_REVIEW = "/apis/authentication.k8s.io/v1/selfsubjectreviews";

/**
 * Serves the self-review APIs clients use to ask what they may do — `kubectl auth can-i`
 * (SelfSubjectAccessReview, sent as protobuf by kubectl 1.32), `auth can-i --list`
 * (SelfSubjectRulesReview) and `auth whoami` (SelfSubjectReview) — answered by `authorizer`.
 */
export function accessReviewStage(authorizer: Authorizer, options: { maxBodyBytes: number }): HandlerStage {
  return {
    name: "access-reviews",
    async handle(ctx) {
      const path = ctx.path;
      if (path !== SSAR && path !== SSRR && path !== SELF_REVIEW) return false;
      if (ctx.method !== "POST") throw methodNotAllowed(ctx.method, path);
      // Reviews have no Table form: a client that accepts only Table gets 406, as upstream.
      if (negotiateObjectFormat(ctx.req.headers.accept, false) === undefined) throw notAcceptable();
      const review = await readReview(ctx, options);
      const user = ctx.user ?? ANONYMOUS;
      if (path === SELF_REVIEW) {
        writeJson(ctx, 201, { kind: "SelfSubjectReview", apiVersion: "authentication.k8s.io/v1", metadata: {}, status: { userInfo: reviewUserInfo(user) } });
        return true;
      }
      if (path === SSRR) {
        const spec = (review["spec"] ?? {}) as { namespace?: string };
        writeJson(ctx, 201, { kind: "SelfSubjectRulesReview", apiVersion: "authorization.k8s.io/v1", metadata: {}, spec, status: await rulesFor(authorizer, user, spec.namespace) });
        return true;
      }
      const spec = (review["spec"] ?? {}) as { resourceAttributes?: Record<string, string>; nonResourceAttributes?: Record<string, string> };
      const attributes: AuthorizationAttributes = spec.resourceAttributes
        ? { verb: spec.resourceAttributes["verb"] ?? "", ...pick(spec.resourceAttributes, ["group", "resource", "subresource", "namespace", "name"]) }
        : { verb: spec.nonResourceAttributes?.["verb"] ?? "", ...pick(spec.nonResourceAttributes ?? {}, ["path"]) };
      const decision = await authorizer.authorize(user, attributes);
      const status: Record<string, unknown> = { allowed: decision.allowed };
      if (decision.denied) status["denied"] = true;
      if (decision.reason) status["reason"] = decision.reason;
      writeJson(ctx, 201, { kind: "SelfSubjectAccessReview", apiVersion: "authorization.k8s.io/v1", metadata: {}, spec, status });
      return true;
    },
  };
}

function pick(source: Record<string, string>, keys: Array<keyof AuthorizationAttributes>): Partial<AuthorizationAttributes> {
  const out: Partial<AuthorizationAttributes> = {};
  for (const key of keys) if (source[key] !== undefined && source[key] !== "") out[key] = source[key];
  return out;
}

async function rulesFor(authorizer: Authorizer, user: UserInfo, namespace: string | undefined) {
  // Without rule enumeration in the Authorizer seam, report what a wildcard check allows.
  const everything = await authorizer.authorize(user, { verb: "*", group: "*", resource: "*", ...(namespace ? { namespace } : {}) });
  const paths = await authorizer.authorize(user, { verb: "*", path: "*" });
  return {
    resourceRules: everything.allowed ? [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }] : [],
    nonResourceRules: paths.allowed ? [{ verbs: ["*"], nonResourceURLs: ["*"] }] : [],
    incomplete: !everything.allowed,
  };
}

async function readReview(ctx: RequestContext, options: { maxBodyBytes: number }): Promise<Record<string, unknown>> {
  const body = await readBody(ctx.req, options.maxBodyBytes);
  const parsed = decodeBody(body, ctx.req.headers["content-type"]).value;
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw badRequest("the body of a review must be an object");
  return parsed as Record<string, unknown>;
}
