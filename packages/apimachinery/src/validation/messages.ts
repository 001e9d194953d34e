/**
 * The message builders of apimachinery's `util/validation`, reproduced byte for byte (including
 * the doubled space `RegexError` emits between examples) so clients and tests that match on the
 * upstream wording keep working.
 */

export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

export function emptyError(): string {
  return "must be non-empty";
}

export function regexError(message: string, format: string, ...examples: string[]): string {
  if (examples.length === 0) return `${message} (regex used for validation is '${format}')`;
  let out = `${message} (e.g. `;
  examples.forEach((example, i) => {
    if (i > 0) out += " or ";
    out += `'${example}', `;
  });
  return `${out}regex used for validation is '${format}')`;
}

export const FIELD_IMMUTABLE_ERROR_MSG = "field is immutable";
export const IS_NEGATIVE_ERROR_MSG = "must be greater than or equal to 0";
