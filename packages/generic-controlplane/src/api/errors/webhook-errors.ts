import { ControlPlaneError, type ControlPlaneErrorCode } from "./control-plane-error.js";
import type { Status } from "../types.js";

/**
 * The errors of calling out to webhooks (k8s.io/apiserver `admission/plugin/webhook/errors` and
 * client-go's handling of an answer that is not 2xx): a webhook's own Status is passed to the
 * client as it is, with its reason and code.
 */

const REASONS = new Set<string>([
  "BadRequest",
  "Unauthorized",
  "Forbidden",
  "NotFound",
  "MethodNotAllowed",
  "NotAcceptable",
  "AlreadyExists",
  "Conflict",
  "Gone",
  "Expired",
  "RequestEntityTooLarge",
  "UnsupportedMediaType",
  "Invalid",
  "TooManyRequests",
  "InternalError",
  "ServerTimeout",
  "Timeout",
  "ServiceUnavailable",
]);

/** client-go's `StatusError`: a Status someone else chose, answered verbatim (reason free-form, maybe empty). */
class PassedStatusError extends ControlPlaneError {
  readonly #status: Status;

  constructor(status: Status) {
    const reason = status.reason ?? "";
    const fallback: ControlPlaneErrorCode = (status.code ?? 0) >= 500 ? "InternalError" : "BadRequest";
    super(REASONS.has(reason) ? (reason as ControlPlaneErrorCode) : fallback, status.message ?? "", {
      httpStatus: status.code,
      ...(status.details === undefined ? {} : { details: status.details }),
    });
    this.#status = status;
  }

  override toStatus(): Status {
    return { ...this.#status, metadata: {} };
  }
}

/**
 * Upstream `webhookerrors.ToStatusErr`: a denial is the webhook's Status with at least 400 and
 * `Failure`, its message prefixed `admission webhook "<name>" denied the request: `.
 */
export function webhookDenied(webhookName: string, result: Partial<Status> | undefined): ControlPlaneError {
  const deniedBy = `admission webhook ${JSON.stringify(webhookName)} denied the request`;
  const code = typeof result?.code === "number" && result.code >= 400 ? result.code : 400;
  let message: string;
  if (result?.message) message = `${deniedBy}: ${result.message}`;
  else if (result?.reason) message = `${deniedBy}: ${result.reason}`;
  else message = `${deniedBy} without explanation`;
  const status: Status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, code };
  if (result?.reason) status.reason = result.reason;
  if (result?.details) status.details = result.details;
  return new PassedStatusError(status);
}

/**
 * What kube-apiserver answers for an error that carries no Status (upstream `ErrorToAPIStatus`'s
 * default), e.g. a custom resource conversion webhook that failed: 500, the error's own text as
 * the message, and no reason (kubectl prints `Error from server: <message>`).
 */
export function conversionFailed(message: string): ControlPlaneError {
  return new PassedStatusError({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, code: 500 });
}

/** Upstream `NewDryRunUnsupportedErr`. */
export function dryRunUnsupported(webhookName: string): ControlPlaneError {
  return new ControlPlaneError("BadRequest", `admission webhook ${JSON.stringify(webhookName)} does not support dry run`);
}

/** What client-go makes of an HTTP status it has no reason for: `the server responded with the status code N but did not return more information`. */
export function unknownServerResponse(code: number): Status {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: `the server responded with the status code ${code} but did not return more information`,
    code,
  };
}
