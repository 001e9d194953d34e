import { ControlPlaneError } from "./control-plane-error.js";
import { statusDetails } from "./details.js";

/**
 * The errors of apimachinery's `api/errors` that carry only a message (and maybe a retry hint):
 * what the message says is the caller's, the reason, code and wording around it are upstream's.
 */

/** What an error wraps, kept for logs; never sent to the client. */
export interface CauseOption {
  cause?: unknown;
}

function withCause(options: CauseOption | undefined): { cause?: unknown } {
  return options?.cause === undefined ? {} : { cause: options.cause };
}

/** 400 BadRequest with the message as given (`NewBadRequest`). */
export function badRequest(message: string, options?: CauseOption): ControlPlaneError {
  return new ControlPlaneError("BadRequest", message, withCause(options));
}

/** 401 Unauthorized; `not authorized` when there is no message (`NewUnauthorized`). */
export function unauthorized(message: string): ControlPlaneError {
  return new ControlPlaneError("Unauthorized", message === "" ? "not authorized" : message);
}

/** 410 Gone (`NewGone`, deprecated upstream in favour of `resourceExpired`). */
export function gone(message: string): ControlPlaneError {
  return new ControlPlaneError("Gone", message);
}

/** 410 Expired: the requested content is older than the server keeps (`NewResourceExpired`). */
export function resourceExpired(message: string, options?: CauseOption & { continueToken?: string }): ControlPlaneError {
  return new ControlPlaneError("Expired", message, {
    ...withCause(options),
    ...(options?.continueToken === undefined ? {} : { continueToken: options.continueToken }),
  });
}

/** 429 with the message as given and a Retry-After (`NewTooManyRequests`). */
export function tooManyRequests(message: string, retryAfterSeconds: number): ControlPlaneError {
  return new ControlPlaneError("TooManyRequests", message, { details: statusDetails({ retryAfterSeconds }) });
}

/** 429 `Too many requests: <message>`, no retry hint (`NewTooManyRequestsError`). */
export function tooManyRequestsError(message: string): ControlPlaneError {
  return new ControlPlaneError("TooManyRequests", `Too many requests: ${message}`);
}

/** 503 ServiceUnavailable with the message as given (`NewServiceUnavailable`). */
export function serviceUnavailable(message: string, options?: CauseOption): ControlPlaneError {
  return new ControlPlaneError("ServiceUnavailable", message, withCause(options));
}

/** 504 `Timeout: <message>`: the operation may still complete (`NewTimeoutError`). */
export function timeoutError(message: string, retryAfterSeconds: number): ControlPlaneError {
  return new ControlPlaneError("Timeout", `Timeout: ${message}`, { details: statusDetails({ retryAfterSeconds }) });
}

/** 413 `Request entity too large: <message>` (`NewRequestEntityTooLargeError`). */
export function requestEntityTooLarge(message: string): ControlPlaneError {
  return new ControlPlaneError("RequestEntityTooLarge", `Request entity too large: ${message}`);
}

/**
 * 500 with the error's own text and no reason: kube-apiserver's answer (`ErrorToAPIStatus`) to an
 * error that is no Status, such as etcd's `etcdserver: request is too large`.
 */
export function unknownError(message: string, options?: CauseOption): ControlPlaneError {
  return new ControlPlaneError("Unknown", message, withCause(options));
}

/** 500 `Internal error occurred: <error>`, the error's text also as the one cause (`NewInternalError`). */
export function internalError(error: unknown): ControlPlaneError {
  const text = error instanceof Error ? error.message : String(error);
  return new ControlPlaneError("InternalError", `Internal error occurred: ${text}`, {
    details: statusDetails({ causes: [{ message: text }] }),
    cause: error,
  });
}
