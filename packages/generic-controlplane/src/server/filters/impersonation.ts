import { authorizationForbidden, internalError } from "../../api/errors/index.js";
import { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, ANONYMOUS_USER } from "../../authn/types.js";
import { serviceAccountGroups, serviceAccountUsername, splitServiceAccountUsername } from "../../authn/serviceaccount/claims.js";
import type { AuthorizationAttributes, Authorizer, UserInfo } from "../access-reviews.js";
import type { IncomingHttpHeaders } from "node:http";
import type { RequestContext } from "../context.js";
import { ownValue, setOwn } from "../../patch/json-value.js";
import type { Next, RequestFilter } from "./chain.js";

const USER_HEADER = "impersonate-user";
const GROUP_HEADER = "impersonate-group";
const UID_HEADER = "impersonate-uid";
const EXTRA_PREFIX = "impersonate-extra-";
const IMPERSONATE_PREFIX = "impersonate-";

/** One thing the requester asks to act as, and the check it needs (upstream's ObjectReference per header value). */
interface ImpersonationRequest {
  describe: string;
  attributes: AuthorizationAttributes;
}

/** Extra keys travel percent-encoded in header names (upstream `unescapeExtraKey`). */
function unescapeExtraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

/** Every value of a header, each repetition separately (Go's `Header[name]`), not joined with commas. */
function headerValues(headers: Record<string, string[] | undefined>, name: string): string[] {
  return (headers[name] ?? []).filter((v) => v !== "");
}

function extraHeaders(headers: Record<string, string[] | undefined>): Array<[string, string[]]> {
  return Object.keys(headers)
    .filter((name) => name.startsWith(EXTRA_PREFIX))
    .map((name) => [unescapeExtraKey(name.slice(EXTRA_PREFIX.length)), headerValues(headers, name)]);
}

/** upstream `buildImpersonationRequests`, in its order: user (or service account), groups, extras, uid. */
function impersonationRequests(headers: Record<string, string[] | undefined>): ImpersonationRequest[] {
  const requests: ImpersonationRequest[] = [];
  const user = headers[USER_HEADER]?.[0] ?? "";
  if (user !== "") {
    const sa = splitServiceAccountUsername(user);
    requests.push(
      sa === undefined
        ? { describe: `{User ${user}}`, attributes: { verb: "impersonate", group: "", resource: "users", name: user } }
        : {
            describe: `{ServiceAccount ${sa.namespace}/${sa.name}}`,
            attributes: { verb: "impersonate", group: "", resource: "serviceaccounts", namespace: sa.namespace, name: sa.name },
          },
    );
  }
  for (const group of headerValues(headers, GROUP_HEADER))
    requests.push({ describe: `{Group ${group}}`, attributes: { verb: "impersonate", group: "", resource: "groups", name: group } });
  for (const [key, values] of extraHeaders(headers)) {
    for (const value of values) {
      requests.push({
        describe: `{UserExtra ${key}=${value}}`,
        attributes: { verb: "impersonate", group: "authentication.k8s.io", resource: "userextras", subresource: key, name: value },
      });
    }
  }
  const uid = headers[UID_HEADER]?.[0] ?? "";
  if (uid !== "")
    requests.push({
      describe: `{UID ${uid}}`,
      attributes: { verb: "impersonate", group: "authentication.k8s.io", resource: "uids", name: uid },
    });
  if (user === "" && requests.length > 0) {
    // upstream answers this with an internal error (500), not a 400.
    throw internalError(new Error(`requested [${requests.map((r) => r.describe).join(" ")}] without impersonating a user`));
  }
  return requests;
}

/** The user the request acts as once every impersonation was allowed (upstream's group rules). */
function impersonatedUser(requests: readonly ImpersonationRequest[], groupsSpecified: boolean): UserInfo {
  let name = "";
  let groups: string[] = [];
  let uid = "";
  const extra: Record<string, string[]> = {};
  for (const { attributes } of requests) {
    switch (attributes.resource) {
      case "serviceaccounts":
        name = serviceAccountUsername(attributes.namespace ?? "", attributes.name ?? "");
        if (!groupsSpecified) groups = serviceAccountGroups(attributes.namespace ?? "");
        break;
      case "users":
        name = attributes.name ?? "";
        break;
      case "groups":
        groups.push(attributes.name ?? "");
        break;
      case "userextras": {
        // The key comes from a header name: `Impersonate-Extra-__proto__` is an ordinary key.
        const key = attributes.subresource ?? "";
        const values = ownValue(extra, key) ?? [];
        values.push(attributes.name ?? "");
        setOwn(extra, key, values);
        break;
      }
      case "uids":
        uid = attributes.name ?? "";
        break;
    }
  }
  if (name !== ANONYMOUS_USER) {
    if (!groups.includes(ALL_AUTHENTICATED) && !groups.includes(ALL_UNAUTHENTICATED)) groups.push(ALL_AUTHENTICATED);
  } else if (!groups.includes(ALL_UNAUTHENTICATED)) groups.push(ALL_UNAUTHENTICATED);
  return { name, groups, ...(uid ? { uid } : {}), ...(Object.keys(extra).length > 0 ? { extra } : {}) };
}

/**
 * upstream `WithImpersonation`: `Impersonate-User` (or a `system:serviceaccount:` name),
 * `Impersonate-Group`, `Impersonate-Uid` and `Impersonate-Extra-<key>` make the request act as
 * another user, once `authorizer` allows the requester the `impersonate` verb on each of them
 * (`users`, `serviceaccounts`, `groups`, `authentication.k8s.io` `uids` and `userextras/<key>`).
 * A denial is upstream's 403; the headers are removed so nothing later acts on them again.
 */
export function withImpersonation(authorizer?: Authorizer): RequestFilter {
  return {
    name: "impersonation",
    handle(ctx, next) {
      // Nearly every request impersonates nobody: that is settled without building headersDistinct.
      if (!asksToImpersonate(ctx.req.headers)) return next(ctx);
      return impersonate(ctx, next, authorizer);
    },
  };
}

async function impersonate(ctx: RequestContext, next: Next, authorizer: Authorizer | undefined): Promise<void> {
  const headers = ctx.req.headersDistinct;
  const requests = impersonationRequests(headers);
  if (requests.length === 0) return next(ctx);
  const requester = ctx.user;
  // Without an authorizer nobody may impersonate: that would let any client pick its user.
  for (const request of requests) {
    const decision = authorizer === undefined ? { allowed: false, reason: "" } : await authorizer.authorize(requester, request.attributes);
    if (!decision.allowed) throw authorizationForbidden(requester.name, request.attributes, decision.reason);
  }
  ctx.user = impersonatedUser(requests, headerValues(headers, GROUP_HEADER).length > 0);
  for (const name of Object.keys(ctx.req.headers)) {
    if (name === USER_HEADER || name === GROUP_HEADER || name === UID_HEADER || name.startsWith(EXTRA_PREFIX)) delete ctx.req.headers[name];
  }
  return next(ctx);
}

function asksToImpersonate(headers: IncomingHttpHeaders): boolean {
  for (const name in headers) if (name.startsWith(IMPERSONATE_PREFIX)) return true;
  return false;
}
