import { isCelList, isCelMap, isCelUint, type CelValue } from "@bufbuild/cel";

/**
 * CEL equality and ordering for the list library: numbers compare across int, uint and double
 * (CEL's heterogeneous equality), lists and maps compare by content.
 */
function numeric(value: CelValue): number | bigint | undefined {
  if (typeof value === "bigint" || typeof value === "number") return value;
  if (isCelUint(value)) return value.value;
  return undefined;
}

export function celEquals(a: CelValue, b: CelValue): boolean {
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined && nb !== undefined) return compareNumbers(na, nb) === 0;
  if (isCelList(a) && isCelList(b)) {
    if (a.size !== b.size) return false;
    for (let i = 0; i < a.size; i++) {
      const x = a.get(i);
      const y = b.get(i);
      if (x === undefined || y === undefined || !celEquals(x, y)) return false;
    }
    return true;
  }
  if (isCelMap(a) && isCelMap(b)) {
    if (a.size !== b.size) return false;
    for (const [key, value] of a) {
      const other = b.get(key);
      if (other === undefined || !celEquals(value, other)) return false;
    }
    return true;
  }
  if (a instanceof Uint8Array && b instanceof Uint8Array) return a.length === b.length && a.every((x, i) => x === b[i]);
  return a === b;
}

function compareNumbers(a: number | bigint, b: number | bigint): number {
  if (typeof a === "bigint" && typeof b === "bigint") return a < b ? -1 : a > b ? 1 : 0;
  const x = Number(a);
  const y = Number(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Ordering of comparable values (numbers, strings, bools, bytes); throws for anything else. */
export function celCompare(a: CelValue, b: CelValue): number {
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined && nb !== undefined) return compareNumbers(na, nb);
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const d = (a[i] ?? 0) - (b[i] ?? 0);
      if (d !== 0) return d;
    }
    return a.length - b.length;
  }
  throw new Error("no such overload");
}
