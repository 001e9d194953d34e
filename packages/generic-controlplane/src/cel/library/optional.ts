import { CelScalar, celFunc, celMethod, type CelInput } from "@bufbuild/cel";
import { OpaqueType } from "./opaque.js";

/**
 * CEL optionals (`optional.of`, `optional.none`, `hasValue`, `value`, `orValue`, `or`), enough for
 * `oldSelf` under `optionalOldSelf: true`, which is an optional that is empty on create.
 */
interface Optional {
  present: boolean;
  value: CelInput | undefined;
}

export const optionalType = new OpaqueType<Optional>("optional_type");

export function optionalOf(value: CelInput): CelInput {
  return optionalType.wrap({ present: true, value }, value);
}

export function optionalNone(): CelInput {
  return optionalType.wrap({ present: false, value: undefined }, null);
}

export const optionalLibrary = [
  celFunc("optional.of", [CelScalar.DYN], CelScalar.DYN, (value) => optionalOf(value)),
  celFunc("optional.none", [], CelScalar.DYN, () => optionalNone()),
  celMethod("hasValue", CelScalar.DYN, [], CelScalar.BOOL, function () {
    return optionalType.expect(this).present;
  }),
  celMethod("value", CelScalar.DYN, [], CelScalar.DYN, function () {
    const optional = optionalType.expect(this);
    if (!optional.present || optional.value === undefined) throw new Error("optional.none() dereference");
    return optional.value;
  }),
  celMethod("orValue", CelScalar.DYN, [CelScalar.DYN], CelScalar.DYN, function (fallback) {
    const optional = optionalType.expect(this);
    return optional.present && optional.value !== undefined ? optional.value : fallback;
  }),
  celMethod("or", CelScalar.DYN, [CelScalar.DYN], CelScalar.DYN, function (other) {
    return optionalType.expect(this).present ? this : other;
  }),
];
