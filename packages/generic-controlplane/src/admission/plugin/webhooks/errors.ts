import { internalError } from "../../../api/errors/index.js";
import type { ControlPlaneError } from "../../../api/errors/control-plane-error.js";

/**
 * Upstream `webhookutil.ErrCallingWebhook`: the webhook could not be asked, or its answer made no
 * sense. failurePolicy decides: Ignore admits the request, Fail answers 500 InternalError with
 * this text.
 */
export class ErrCallingWebhook extends Error {
  override readonly name = "ErrCallingWebhook";
  readonly webhookName: string;

  constructor(webhookName: string, reason: string, options: { cause?: unknown } = {}) {
    super(
      `failed calling webhook ${JSON.stringify(webhookName)}: ${reason}`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.webhookName = webhookName;
  }
}

/** failurePolicy Fail: `Internal error occurred: failed calling webhook "x": ...`. */
export function failingClosed(error: ErrCallingWebhook): ControlPlaneError {
  return internalError(error);
}
