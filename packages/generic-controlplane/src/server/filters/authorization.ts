import { forbidden } from "../../api/errors/index.js";
import type { AuthorizationAttributes, AuthorizationDecision, Authorizer, UserInfo } from "../access-reviews.js";
import type { RequestContext } from "../context.js";
import { passThrough, type Next, type RequestFilter } from "./chain.js";

/**
 * What a request asks to do, as upstream's `GetAuthorizerAttributes`: the verb on a resource (a
 * request on a namespace object is in that namespace, so a RoleBinding there can grant reading
 * it), or the lower-cased HTTP method on a path.
 */
export function requestAttributes(ctx: RequestContext): AuthorizationAttributes {
  const info = ctx.info;
  if (info === undefined || !info.isResourceRequest) return { verb: ctx.method.toLowerCase(), path: ctx.path };
  const namespace = info.group === "" && info.resource === "namespaces" && info.name !== "" ? info.name : info.namespace;
  const attributes: AuthorizationAttributes = { verb: info.verb, group: info.group, resource: info.resource };
  if (info.subresource !== "") attributes.subresource = info.subresource;
  if (namespace !== undefined && namespace !== "") attributes.namespace = namespace;
  if (info.name !== "") attributes.name = info.name;
  return attributes;
}

/** upstream `forbiddenMessage` (endpoints/handlers/responsewriters/errors.go). */
export function forbiddenMessage(user: UserInfo, attributes: AuthorizationAttributes): string {
  if (attributes.path !== undefined)
    return `User ${JSON.stringify(user.name)} cannot ${attributes.verb} path ${JSON.stringify(attributes.path)}`;
  let resource = attributes.resource ?? "";
  if (attributes.subresource) resource = `${resource}/${attributes.subresource}`;
  const what = `User ${JSON.stringify(user.name)} cannot ${attributes.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(attributes.group ?? "")}`;
  if (attributes.namespace) return `${what} in the namespace ${JSON.stringify(attributes.namespace)}`;
  return `${what} at the cluster scope`;
}

/**
 * upstream `WithAuthorization`, after flow control and just before dispatch: every request is
 * asked of `authorizer`; one not allowed gets 403 Forbidden with upstream's message, e.g.
 * `configmaps is forbidden: User "jane" cannot create resource "configmaps" in API group "" in
 * the namespace "default"`, and the authorizer's reason after a colon when it gave one. Without an
 * authorizer every request passes (kube-apiserver's `--authorization-mode=AlwaysAllow`).
 */
export function withAuthorization(authorizer?: Authorizer): RequestFilter {
  if (authorizer === undefined) return passThrough("authorization");
  return {
    name: "authorization",
    handle(ctx, next) {
      const attributes = requestAttributes(ctx);
      const decision = authorizer.authorize(ctx.user, attributes);
      // A decision the authorizer has at hand (AlwaysAllow, a cached answer) needs no promise.
      if (decision instanceof Promise) return decision.then((answer) => decide(ctx, attributes, answer, next));
      return decide(ctx, attributes, decision, next);
    },
  };
}

function decide(ctx: RequestContext, attributes: AuthorizationAttributes, decision: AuthorizationDecision, next: Next): Promise<void> {
  if (!decision.allowed) {
    const message = forbiddenMessage(ctx.user, attributes);
    const why = decision.reason ? `${message}: ${decision.reason}` : message;
    const resource =
      attributes.path === undefined ? { group: attributes.group ?? "", resource: attributes.resource ?? "" } : { group: "", resource: "" };
    throw forbidden(resource, attributes.name ?? "", why);
  }
  return next(ctx);
}
