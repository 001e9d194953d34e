import { internalError } from "../../api/errors/index.js";
import type { Status } from "../../api/types.js";
import { ControlPlaneError, type ControlPlaneErrorCode } from "../../errors.js";

/**
 * Upstream `webhookutil.ErrCallingWebhook`: the webhook could not be asked, or its answer made no
 * sense. failurePolicy decides: Ignore admits the request, Fail answers 500 InternalError with
 * this text.
 */
export class ErrCallingWebhook extends Error {
  override readonly name = "ErrCallingWebhook";
  readonly webhookName: string;

  constructor(webhookName: string, reason: string, options: { cause?: unknown } = {}) {
    super(`failed calling webhook ${JSON.stringify(webhookName)}: ${reason}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.webhookName = webhookName;
  }
}

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

/** A Status a webhook chose, passed to the client as it is (its own reason and code, details kept). */
class WebhookStatusError extends ControlPlaneError {
  readonly #status: Status;

  constructor(status: Status) {
    const reason = status.reason ?? "";
    super(REASONS.has(reason) ? (reason as ControlPlaneErrorCode) : "BadRequest", status.message ?? "", {
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
  return new WebhookStatusError(status);
}

/** failurePolicy Fail: `Internal error occurred: failed calling webhook "x": ...`. */
export function failingClosed(error: ErrCallingWebhook): ControlPlaneError {
  return internalError(error);
}

/** Upstream `NewDryRunUnsupportedErr`. */
export function dryRunUnsupported(webhookName: string): ControlPlaneError {
  return new ControlPlaneError("BadRequest", `admission webhook ${JSON.stringify(webhookName)} does not support dry run`);
}
