import { CelScalar, celError, celMethod, celUint, isCelUint, listType, type CelList, type CelValue } from "@bufbuild/cel";
import { celCompare, celEquals } from "./values.js";

/**
 * Kubernetes' list library (apiserver `library/lists.go`): `isSorted`, `sum`, `min`, `max`,
 * `indexOf` and `lastIndexOf` on lists of comparable values.
 */

const LIST = listType(CelScalar.DYN);

function items(list: CelList): CelValue[] {
  return [...list];
}

function sum(list: CelList): CelValue {
  const values = items(list);
  if (values.length === 0) return 0n;
  let total = values[0] as CelValue;
  for (const value of values.slice(1)) {
    if (typeof total === "bigint" && typeof value === "bigint") {
      total += value;
      if (total > 9223372036854775807n || total < -9223372036854775808n) throw celError("integer overflow");
    } else if (typeof total === "number" && typeof value === "number") total += value;
    else if (isCelUint(total) && isCelUint(value)) total = celUint(total.value + value.value);
    else throw celError("no such overload");
  }
  return total;
}

function extreme(list: CelList, pick: (comparison: number) => boolean, name: string): CelValue {
  const values = items(list);
  if (values.length === 0) throw celError(`${name}(list) argument must not be empty`);
  let best = values[0] as CelValue;
  for (const value of values.slice(1)) if (pick(celCompare(value, best))) best = value;
  return best;
}

export const listsLibrary = [
  celMethod("isSorted", LIST, [], CelScalar.BOOL, function () {
    const values = items(this);
    for (let i = 1; i < values.length; i++) if (celCompare(values[i - 1] as CelValue, values[i] as CelValue) > 0) return false;
    return true;
  }),
  celMethod("sum", LIST, [], CelScalar.DYN, function () {
    return sum(this);
  }),
  celMethod("min", LIST, [], CelScalar.DYN, function () {
    return extreme(this, (c) => c < 0, "min");
  }),
  celMethod("max", LIST, [], CelScalar.DYN, function () {
    return extreme(this, (c) => c > 0, "max");
  }),
  celMethod("indexOf", LIST, [CelScalar.DYN], CelScalar.INT, function (element) {
    const values = items(this);
    return BigInt(values.findIndex((value) => celEquals(value, element)));
  }),
  celMethod("lastIndexOf", LIST, [CelScalar.DYN], CelScalar.INT, function (element) {
    const values = items(this);
    for (let i = values.length - 1; i >= 0; i--) if (celEquals(values[i] as CelValue, element)) return BigInt(i);
    return -1n;
  }),
];
