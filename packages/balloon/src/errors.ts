/**
 * Every failure this package reports, as a stable string a caller can branch on.
 *
 * - `quantity-format`: the text is not shaped like a quantity (`<signedNumber><suffix>`).
 * - `quantity-numeric`: the numeric part has no digits.
 * - `quantity-suffix`: the suffix is not one Kubernetes knows (`K`, `mi`, `e` alone, …).
 * - `quantity-range`: the exponent is beyond what this package will materialise (±10000).
 * - `invalid-resource-list`: a resource list entry is malformed (`cpu=`, empty name, …).
 * - `invalid-argument`: an input to the sizing or manifest API breaks its documented contract.
 * - `invalid-input`: a YAML document or CLI argument could not be read as what it should be.
 */
export type BalloonErrorCode =
  | "quantity-format"
  | "quantity-numeric"
  | "quantity-suffix"
  | "quantity-range"
  | "invalid-resource-list"
  | "invalid-argument"
  | "invalid-input";

/** The one error class of `@kubekit/balloon`. Match on `code` (or `name`), not only `instanceof`. */
export class BalloonError extends Error {
  override readonly name = "BalloonError";
  readonly code: BalloonErrorCode;

  constructor(code: BalloonErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** True for a `BalloonError`, also when it comes from another copy of this package. */
export function isBalloonError(value: unknown): value is BalloonError {
  return value instanceof BalloonError || (value instanceof Error && value.name === "BalloonError" && "code" in value);
}
