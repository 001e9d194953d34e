import type { ControlPlaneError } from "./control-plane-error.js";
import { forbidden } from "./resource-errors.js";

/** What was asked for, as the server's `AuthorizationAttributes` carry it (resource attributes, or a non-resource path). */
interface DeniedAttributes {
  verb: string;
  group?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  path?: string;
}

/**
 * upstream `responsewriters.forbiddenMessage`: what a user was denied, e.g. `User "bob" cannot
 * impersonate resource "users" in API group "" at the cluster scope`.
 */
export function forbiddenMessage(user: string, attributes: DeniedAttributes): string {
  if (attributes.resource === undefined)
    return `User ${JSON.stringify(user)} cannot ${attributes.verb} path ${JSON.stringify(attributes.path ?? "")}`;
  const resource = attributes.subresource ? `${attributes.resource}/${attributes.subresource}` : attributes.resource;
  const where = attributes.namespace ? `in the namespace ${JSON.stringify(attributes.namespace)}` : "at the cluster scope";
  return `User ${JSON.stringify(user)} cannot ${attributes.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(attributes.group ?? "")} ${where}`;
}

/**
 * 403 for a request the authorizer did not allow (upstream `responsewriters.Forbidden`):
 * `users "jane" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the
 * cluster scope`, with the authorizer's reason after a colon when it gave one.
 */
export function authorizationForbidden(user: string, attributes: DeniedAttributes, reason?: string): ControlPlaneError {
  const message = forbiddenMessage(user, attributes);
  return forbidden(
    { group: attributes.group ?? "", resource: attributes.resource ?? "" },
    attributes.name ?? "",
    reason ? `${message}: ${reason}` : message,
  );
}
