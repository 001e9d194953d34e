import { ControlPlaneError } from "./control-plane-error.js";
import { statusDetails } from "./details.js";
import type { GroupResource } from "./group-resource.js";
import { genericServerResponse } from "./generic-server-response.js";
import { badRequest, tooManyRequests } from "./request-errors.js";

/**
 * The errors of kube-apiserver's request handling (k8s.io/apiserver `endpoints`, `registry/rest`
 * and the server filters) that are not a resource's: routing, content negotiation, and a body
 * that does not match its URL.
 */

/** Every media type an object can be read or written in. */
export const OBJECT_MEDIA_TYPES: readonly string[] = ["application/json", "application/yaml", "application/vnd.kubernetes.protobuf"];

/** 404 for a path the server does not serve at all (the not-found handler's Status, no details). */
export function pathNotFound(): ControlPlaneError {
  return new ControlPlaneError("NotFound", "the server could not find the requested resource");
}

/** 405 `the server does not allow this method on the requested resource (PUT /api/v1/…)`. */
export function methodNotAllowed(method: string, path: string): ControlPlaneError {
  return new ControlPlaneError("MethodNotAllowed", `the server does not allow this method on the requested resource (${method} ${path})`);
}

/**
 * 405 for a verb the resource's routes do not have, e.g. POST of a namespaced resource outside a
 * namespace: the text a client makes of the router's bare 405,
 * `the server does not allow this method on the requested resource (post leases.coordination.k8s.io)`.
 */
export function verbNotRouted(verb: string, resource: GroupResource): ControlPlaneError {
  return genericServerResponse({ code: 405, verb, resource });
}

/** 406 `only the following media types are accepted: …` (negotiation's `NewNotAcceptableError`). */
export function notAcceptable(accepted: readonly string[] = OBJECT_MEDIA_TYPES): ControlPlaneError {
  return new ControlPlaneError("NotAcceptable", `only the following media types are accepted: ${accepted.join(", ")}`);
}

/**
 * 415 `the body of the request was in an unknown format - accepted media types include: …`
 * (negotiation's `NewUnsupportedMediaTypeError`), naming the Content-Type that was refused in a cause.
 */
export function unsupportedMediaType(contentType: string, accepted: readonly string[]): ControlPlaneError {
  return new ControlPlaneError(
    "UnsupportedMediaType",
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(", ")}`,
    {
      details: statusDetails({
        causes: [{ reason: "UnexpectedServerResponse", message: `unsupported media type ${JSON.stringify(contentType)}` }],
      }),
    },
  );
}

/** 415 for a protobuf body of a kind that has no protobuf form (custom resources): JSON and YAML are what it takes. */
export function protobufNotSupported(apiVersion: string, kind: string): ControlPlaneError {
  return new ControlPlaneError(
    "UnsupportedMediaType",
    `the body of the request was in an unknown format: protobuf is not supported for ${apiVersion}, Kind=${kind} - accepted media types include: application/json, application/yaml`,
  );
}

/** 415 for a protobuf body carrying a field the kind's registered messages do not declare (it would otherwise be dropped). */
export function protobufFieldNotSupported(apiVersion: string, kind: string, field: string): ControlPlaneError {
  return new ControlPlaneError(
    "UnsupportedMediaType",
    `the body of the request was in an unknown format: protobuf field ${field} is not supported for ${apiVersion}, Kind=${kind} - accepted media types include: application/json, application/yaml`,
  );
}

/** 406 for a protobuf answer asked of a kind that has no protobuf form. */
export function protobufNotAcceptable(apiVersion: string, kind: string): ControlPlaneError {
  return new ControlPlaneError("NotAcceptable", `protobuf is not supported for ${apiVersion}, Kind=${kind}`);
}

/** 400 for a body whose `metadata.name` is not the URL's (handlers' `checkName`). */
export function nameMismatch(objectName: string, urlName: string): ControlPlaneError {
  return badRequest(`the name of the object (${objectName}) does not match the name on the URL (${urlName})`);
}

/** 400 for a body whose `metadata.namespace` is not the URL's (`rest.EnsureObjectNamespaceMatchesRequestNamespace`). */
export function namespaceMismatch(): ControlPlaneError {
  return badRequest("the namespace of the provided object does not match the namespace sent on the request");
}

/**
 * 408 with reason Timeout: the client did not send its body in time. Upstream's request-timeout
 * filter answers a stuck request after 60 s; a body that stops arriving is the client's fault, so
 * it gets HTTP's own code for that rather than a 5xx.
 */
export function bodyReadTimeout(why: string): ControlPlaneError {
  return new ControlPlaneError("Timeout", `Timeout: request body not received in time: ${why}`, { httpStatus: 408 });
}

/** 429 once the server is draining for shutdown (the retry-after filter's wording and 5 s hint). */
export function shuttingDown(): ControlPlaneError {
  return tooManyRequests("The apiserver is shutting down, please try again later.", 5);
}

/** 429 from the in-flight limit or flow control (the max-in-flight filter's wording, 1 s hint). */
export function tooManyInFlight(): ControlPlaneError {
  return tooManyRequests("Too many requests, please try again later.", 1);
}
