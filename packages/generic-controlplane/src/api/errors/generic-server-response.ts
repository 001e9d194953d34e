import { ControlPlaneError, type ControlPlaneErrorCode } from "./control-plane-error.js";
import type { StatusCause } from "../types.js";
import { statusDetails } from "./details.js";
import { isEmptyGroupResource, qualifiedResource, type GroupResource } from "./group-resource.js";

/** What a client makes of a bare HTTP status, per status: its reason and its wording. */
const GENERIC: Record<number, { reason: ControlPlaneErrorCode; message: (serverMessage: string) => string }> = {
  400: { reason: "BadRequest", message: () => "the server rejected our request for an unknown reason" },
  401: { reason: "Unauthorized", message: () => "the server has asked for the client to provide credentials" },
  // The server's message says who may not do what: it is kept.
  403: { reason: "Forbidden", message: (m) => m },
  404: { reason: "NotFound", message: () => "the server could not find the requested resource" },
  405: { reason: "MethodNotAllowed", message: () => "the server does not allow this method on the requested resource" },
  406: {
    reason: "NotAcceptable",
    message: (m) => (m === "" || m === "unknown" ? "the server was unable to respond with a content type that the client supports" : m),
  },
  415: { reason: "UnsupportedMediaType", message: (m) => m },
  422: { reason: "Invalid", message: () => "the server rejected our request due to an error in our request" },
  429: { reason: "TooManyRequests", message: () => "the server has received too many requests and has asked us to try again later" },
  503: { reason: "ServiceUnavailable", message: () => "the server is currently unable to handle the request" },
  504: {
    reason: "Timeout",
    message: () => "the server was unable to return a response in the time allotted, but may still be processing the request",
  },
};

export interface GenericServerResponse {
  /** The HTTP status code. */
  code: number;
  /** The HTTP method (POST turns a 409 into AlreadyExists); shown lower-case after the message. */
  verb: string;
  resource?: GroupResource;
  name?: string;
  serverMessage?: string;
  retryAfterSeconds?: number;
  /** Whether the body was not a Status: the server's message then becomes an UnexpectedServerResponse cause. */
  isUnexpectedResponse?: boolean;
}

/**
 * The Status a client reconstructs from an HTTP answer without one (`NewGenericServerResponse`),
 * e.g. `the server does not allow this method on the requested resource (post leases.coordination.k8s.io)`.
 * The server sends it where kube-apiserver's router answers with a bare status, so clients show
 * the same text. Statuses upstream leaves without a reason (other 4xx) are not supported.
 */
export function genericServerResponse(response: GenericServerResponse): ControlPlaneError {
  const { code, verb, name = "", serverMessage = "", retryAfterSeconds = 0 } = response;
  const resource = response.resource ?? { group: "", resource: "" };
  let reason: ControlPlaneErrorCode;
  let message: string;
  if (code === 409) {
    reason = verb.toUpperCase() === "POST" ? "AlreadyExists" : "Conflict";
    message = "the server reported a conflict";
  } else if (GENERIC[code] !== undefined) {
    reason = GENERIC[code].reason;
    message = GENERIC[code].message(serverMessage);
  } else if (code >= 500) {
    reason = "InternalError";
    message = `an error on the server (${JSON.stringify(serverMessage)}) has prevented the request from succeeding`;
  } else {
    throw new RangeError(`no generic server response for HTTP status ${code}`);
  }
  if (!isEmptyGroupResource(resource)) {
    message +=
      name === ""
        ? ` (${verb.toLowerCase()} ${qualifiedResource(resource)})`
        : ` (${verb.toLowerCase()} ${qualifiedResource(resource)} ${name})`;
  }
  const causes: StatusCause[] | undefined =
    response.isUnexpectedResponse === true ? [{ reason: "UnexpectedServerResponse", message: serverMessage }] : undefined;
  return new ControlPlaneError(reason, message, {
    details: statusDetails({
      group: resource.group,
      kind: resource.resource,
      name,
      retryAfterSeconds,
      ...(causes === undefined ? {} : { causes }),
    }),
    httpStatus: code,
  });
}
