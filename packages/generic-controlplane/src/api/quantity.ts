/**
 * Resource quantities (`100m`, `1Gi`, `2`, `1e3`) as the API server reads them from JSON: the one
 * `Quantity` of @kubekit/apimachinery, seen in exact thousandths (bigint) so sums never round.
 */
import { Quantity, type QuantityFormat } from "@kubekit/apimachinery";

export { QUANTITY_FORMAT_MESSAGE, type QuantityFormat } from "@kubekit/apimachinery";

/** The quantity in thousandths (rounded up, as upstream's MilliValue), or undefined when it is not one. */
export function parseMilli(text: string): bigint | undefined {
  return Quantity.tryParse(text)?.milliValue();
}

/** Whether `value` is a quantity as a JSON client may send it (a string or a plain number). */
export function quantityText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
}

/** A JSON value's quantity in thousandths, or undefined when it is none. */
export function milliOf(value: unknown): bigint | undefined {
  const text = quantityText(value);
  return text === undefined ? undefined : parseMilli(text);
}

/** The format apimachinery gives a quantity parsed from `text` (DecimalSI when it is none). */
export function quantityFormatOf(text: string): QuantityFormat {
  return Quantity.tryParse(text)?.format ?? "DecimalSI";
}

/** `resource.Quantity.String()` of an amount in thousandths, in `format`. */
export function formatQuantity(milli: bigint, format: QuantityFormat = "DecimalSI"): string {
  return Quantity.ofMilli(milli, format).toString();
}
