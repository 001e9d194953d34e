/** Every `code` a {@link NetworkRegistryError} can carry; callers branch on it. */
export type NetworkRegistryErrorCode =
  | "invalid-address"
  | "invalid-prefix"
  | "invalid-argument"
  | "invalid-claim"
  | "claim-mismatch"
  | "pool-not-found"
  | "pool-exhausted"
  | "not-delegable"
  | "has-dependants"
  | "invalid-snapshot"
  | "timeout"
  | "api-error";

/** The strict parsing rule an address or prefix broke (only on `invalid-address` / `invalid-prefix`). */
export type ParseRule =
  | "syntax"
  | "whitespace"
  | "not-four-parts"
  | "not-decimal"
  | "leading-zero"
  | "octet-out-of-range"
  | "zone-id"
  | "ipv4-mapped"
  | "non-canonical"
  | "missing-length"
  | "length-out-of-range"
  | "host-bits-set";

export interface NetworkRegistryErrorOptions extends ErrorOptions {
  /** For parse errors: which rule the input broke. */
  rule?: ParseRule;
  /** For parse errors: the corrected text, when there is an unambiguous fix. */
  suggestion?: string;
}

/** The single error class of `@kubekit/network-registry`. Match on `code` (or `name`), not only `instanceof`. */
export class NetworkRegistryError extends Error {
  override readonly name = "NetworkRegistryError";
  readonly code: NetworkRegistryErrorCode;
  readonly rule: ParseRule | undefined;
  readonly suggestion: string | undefined;

  constructor(code: NetworkRegistryErrorCode, message: string, options: NetworkRegistryErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.rule = options.rule;
    this.suggestion = options.suggestion;
  }
}

/** True for a {@link NetworkRegistryError}, also across duplicate copies of this package. */
export function isNetworkRegistryError(error: unknown): error is NetworkRegistryError {
  return error instanceof NetworkRegistryError || (error instanceof Error && error.name === "NetworkRegistryError" && "code" in error);
}
