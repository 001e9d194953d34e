import type { Status, StatusDetails } from "../types.js";

/**
 * Every failure this package reports. The API-level codes are the `reason`s of kube `Status`
 * objects, so an error thrown anywhere below the HTTP layer turns into the Status a Kubernetes
 * client expects without a translation table. The errors themselves come from the catalogue in
 * `api/errors/` (after apimachinery's `api/errors`), which words each one as kube-apiserver does.
 */
export type ControlPlaneErrorCode =
  | "BadRequest"
  | "Unauthorized"
  | "Forbidden"
  | "NotFound"
  | "MethodNotAllowed"
  | "NotAcceptable"
  | "AlreadyExists"
  | "Conflict"
  | "Gone"
  | "Expired"
  | "RequestEntityTooLarge"
  | "UnsupportedMediaType"
  | "Invalid"
  | "TooManyRequests"
  | "InternalError"
  | "ServerTimeout"
  | "Timeout"
  | "ServiceUnavailable"
  /** An error that is no Status (upstream `StatusReasonUnknown`, the empty reason): 500 without a `reason`. */
  | "Unknown";

const HTTP_STATUS: Record<ControlPlaneErrorCode, number> = {
  BadRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  NotAcceptable: 406,
  AlreadyExists: 409,
  Conflict: 409,
  Gone: 410,
  Expired: 410,
  RequestEntityTooLarge: 413,
  UnsupportedMediaType: 415,
  Invalid: 422,
  TooManyRequests: 429,
  InternalError: 500,
  ServerTimeout: 500,
  Timeout: 504,
  ServiceUnavailable: 503,
  Unknown: 500,
};

export interface ControlPlaneErrorOptions {
  details?: StatusDetails;
  cause?: unknown;
  /** Extra Status metadata, e.g. the "inconsistent continue" token of a 410 on a compacted list. */
  continueToken?: string;
  /**
   * The HTTP status when it is not the reason's usual one, as upstream does for a few Status
   * errors (e.g. reason `Timeout` with 408 for a request body that never arrived).
   */
  httpStatus?: number;
}

export class ControlPlaneError extends Error {
  override readonly name = "ControlPlaneError";
  readonly code: ControlPlaneErrorCode;
  readonly details: StatusDetails | undefined;
  readonly continueToken: string | undefined;
  readonly #httpStatus: number | undefined;

  constructor(code: ControlPlaneErrorCode, message: string, options: ControlPlaneErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details;
    this.continueToken = options.continueToken;
    this.#httpStatus = options.httpStatus;
  }

  /** The HTTP status code a client sees for this error. */
  get httpStatus(): number {
    return this.#httpStatus ?? HTTP_STATUS[this.code];
  }

  /** The `kind: Status` body for this error. */
  toStatus(): Status {
    const status: Status = {
      kind: "Status",
      apiVersion: "v1",
      metadata: this.continueToken === undefined ? {} : { continue: this.continueToken },
      status: "Failure",
      message: this.message,
      reason: this.code,
      code: this.httpStatus,
    };
    // Go omits the empty StatusReasonUnknown.
    if (this.code === "Unknown") delete status.reason;
    if (this.details !== undefined) status.details = this.details;
    return status;
  }
}

/** Matches by name as well as class, so two copies of the package still recognise each other's errors. */
export function isControlPlaneError(error: unknown): error is ControlPlaneError {
  return error instanceof ControlPlaneError || (error instanceof Error && error.name === "ControlPlaneError" && "code" in error);
}
