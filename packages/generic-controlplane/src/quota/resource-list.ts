import { formatQuantity, milliOf, quantityFormatOf, quantityText, type QuantityFormat } from "../api/quantity.js";

/** One resource's amount: exact thousandths and the format it prints in. */
export interface QuotaAmount {
  milli: bigint;
  format: QuantityFormat;
}

/** A resource list (`corev1.ResourceList`) as quota arithmetic sees it; a Map, so any name is a plain key. */
export type QuotaUsage = Map<string, QuotaAmount>;

/** A whole number of objects. */
export const countOf = (n: number | bigint): QuotaAmount => ({ milli: BigInt(n) * 1000n, format: "DecimalSI" });

/** A JSON resource list's amounts; values that are no quantity are left out. */
export function usageOf(list: Readonly<Record<string, unknown>> | undefined): QuotaUsage {
  const usage: QuotaUsage = new Map();
  for (const [name, value] of Object.entries(list ?? {})) {
    const text = quantityText(value);
    const milli = milliOf(value);
    if (text !== undefined && milli !== undefined) usage.set(name, { milli, format: quantityFormatOf(text) });
  }
  return usage;
}

/** The resource list as JSON, each amount in its canonical text. */
export function usageToList(usage: QuotaUsage): Record<string, string> {
  // fromEntries defines own properties: `__proto__` stays a plain key.
  return Object.fromEntries(
    [...usage.keys()].sort().map((name) => [name, formatQuantity(usage.get(name)!.milli, usage.get(name)!.format)]),
  );
}

/** apimachinery's Quantity.Add: a zero amount takes the other's format. */
export function addAmounts(a: QuotaAmount, b: QuotaAmount): QuotaAmount {
  return { milli: a.milli + b.milli, format: a.milli === 0n ? b.format : a.format };
}

/** `quota.Add`: every name of either list, summed. */
export function addUsage(a: QuotaUsage, b: QuotaUsage): QuotaUsage {
  const sum: QuotaUsage = new Map(a);
  for (const [name, amount] of b) {
    const held = sum.get(name);
    sum.set(name, held === undefined ? amount : addAmounts(held, amount));
  }
  return sum;
}

/** `quota.SubtractWithNonNegativeResult`: what `a` adds over `b`, never below zero. */
export function subtractNonNegative(a: QuotaUsage, b: QuotaUsage): QuotaUsage {
  const difference: QuotaUsage = new Map();
  for (const [name, amount] of a) {
    const left = amount.milli - (b.get(name)?.milli ?? 0n);
    difference.set(name, { milli: left > 0n ? left : 0n, format: amount.format });
  }
  return difference;
}

/** `quota.Mask`: only the named resources. */
export function maskUsage(usage: QuotaUsage, names: Iterable<string>): QuotaUsage {
  const masked: QuotaUsage = new Map();
  for (const name of names) {
    const amount = usage.get(name);
    if (amount !== undefined) masked.set(name, amount);
  }
  return masked;
}

/** Whether every amount is zero (`quota.IsZero`). */
export const isZeroUsage = (usage: QuotaUsage): boolean => [...usage.values()].every((amount) => amount.milli === 0n);

/** Whether two lists hold the same names with equal amounts (`quota.Equals`). */
export function sameUsage(a: QuotaUsage, b: QuotaUsage): boolean {
  return a.size === b.size && [...a].every(([name, amount]) => b.get(name)?.milli === amount.milli);
}

/** `quota.LessThanOrEqual`: the names of `a` that exceed `b` (names `b` lacks are no limit). */
export function exceededNames(a: QuotaUsage, b: QuotaUsage): string[] {
  return [...a]
    .filter(([name, amount]) => {
      const limit = b.get(name);
      return limit !== undefined && amount.milli > limit.milli;
    })
    .map(([name]) => name);
}

/** The admission plugin's `prettyPrint`: `name=quantity` sorted by name, comma separated. */
export function prettyPrintUsage(usage: QuotaUsage): string {
  return [...usage.keys()]
    .sort()
    .map((name) => `${name}=${formatQuantity(usage.get(name)!.milli, usage.get(name)!.format)}`)
    .join(",");
}
