/**
 * Why a text is not a quantity, or why an operation would leave the range a quantity can print and
 * parse back. `code` is stable for branching; `reason` is apimachinery's own wording (what the API
 * server puts in a Status); `message` adds the text and, for spellings from other tools, a hint.
 */
export type QuantityErrorCode = "quantity-format" | "quantity-numeric" | "quantity-suffix" | "quantity-range" | "invalid-argument";

export class QuantityError extends Error {
  override readonly name = "QuantityError";
  readonly code: QuantityErrorCode;
  readonly reason: string;

  constructor(code: QuantityErrorCode, reason: string, message: string = reason) {
    super(message);
    this.code = code;
    this.reason = reason;
  }
}

/** apimachinery's `ErrFormatWrong`. */
export const QUANTITY_FORMAT_MESSAGE = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
/** apimachinery's `ErrNumeric`. */
export const QUANTITY_NUMERIC_MESSAGE = "unable to parse numeric part of quantity";
/** apimachinery's `ErrSuffix`. */
export const QUANTITY_SUFFIX_MESSAGE = "unable to parse quantity's suffix";
