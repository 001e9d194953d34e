/**
 * Every failure this package reports, as a stable string a caller can branch on.
 *
 * - `invalid-driver`: a driver file or module is not a valid driver (unknown field, wrong type,
 *   unknown template variable); the message names the field and its path.
 * - `driver-hook-failed`: a driver hook threw, or its command exited non-zero or printed
 *   something that is not the documented answer.
 * - `assertion-failed`: a test's check did not hold; the message is the assertion text.
 * - `timeout`: a wait ran past its deadline; the message says what was awaited and for how long.
 * - `skipped`: a test asked to be skipped at run time (the message is the reason).
 * - `invalid-argument`: a CLI flag, label filter or regular expression could not be read.
 * - `interrupted`: the run was cancelled (Ctrl-C or an aborted signal).
 */
export type CcmE2eErrorCode =
  "invalid-driver" | "driver-hook-failed" | "assertion-failed" | "timeout" | "skipped" | "invalid-argument" | "interrupted";

/** The one error class of `@kubekit/ccm-e2e`. Match on `code` (or `name`), not only `instanceof`. */
export class CcmE2eError extends Error {
  override readonly name = "CcmE2eError";
  readonly code: CcmE2eErrorCode;

  constructor(code: CcmE2eErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** True for a `CcmE2eError` (also from another copy of this package), optionally of one code. */
export function isCcmE2eError(value: unknown, code?: CcmE2eErrorCode): value is CcmE2eError {
  const matches = value instanceof CcmE2eError || (value instanceof Error && value.name === "CcmE2eError" && "code" in value);
  return matches && (code === undefined || (value as CcmE2eError).code === code);
}
