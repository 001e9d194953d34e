import { CelScalar, celError, celFunc, celMethod } from "@bufbuild/cel";
import { Quantity, QuantityError } from "@kubekit/apimachinery";
import { OpaqueType } from "./opaque.js";

/**
 * Kubernetes' quantity library (apiserver `library/quantity.go`): `quantity('1.5Gi')`,
 * `isQuantity`, `sign`, `isInteger`, `asInteger`, `asApproximateFloat`, `add`, `sub`,
 * `isGreaterThan`, `isLessThan`, `compareTo`, with `==` comparing amounts (`1000m == 1`).
 * Each value is @kubekit/apimachinery's `Quantity`, so CEL reads amounts as the API server does.
 */

const quantityType = new OpaqueType<Quantity>("k8s.io/Quantity");

function wrap(quantity: Quantity) {
  return quantityType.wrap(quantity, quantity.nanos.toString());
}

function operand(value: unknown): Quantity {
  return typeof value === "bigint" ? Quantity.of(value) : quantityType.expect(value);
}

export const quantityLibrary = [
  celFunc("quantity", [CelScalar.STRING], CelScalar.DYN, (text) => {
    try {
      return wrap(Quantity.parse(text));
    } catch (error) {
      if (error instanceof QuantityError) throw celError(error.reason);
      throw error;
    }
  }),
  celFunc("isQuantity", [CelScalar.STRING], CelScalar.BOOL, (text) => Quantity.tryParse(text) !== undefined),
  celMethod("sign", CelScalar.DYN, [], CelScalar.INT, function () {
    return BigInt(quantityType.expect(this).sign());
  }),
  celMethod("isInteger", CelScalar.DYN, [], CelScalar.BOOL, function () {
    return quantityType.expect(this).asInt64() !== undefined;
  }),
  celMethod("asInteger", CelScalar.DYN, [], CelScalar.INT, function () {
    const units = quantityType.expect(this).asInt64();
    if (units === undefined) throw celError("cannot convert value to integer");
    return units;
  }),
  celMethod("asApproximateFloat", CelScalar.DYN, [], CelScalar.DOUBLE, function () {
    return quantityType.expect(this).asApproximateFloat64();
  }),
  celMethod("add", CelScalar.DYN, [CelScalar.DYN], CelScalar.DYN, function (other) {
    return wrap(quantityType.expect(this).add(operand(other)));
  }),
  celMethod("sub", CelScalar.DYN, [CelScalar.DYN], CelScalar.DYN, function (other) {
    return wrap(quantityType.expect(this).sub(operand(other)));
  }),
  celMethod("isGreaterThan", CelScalar.DYN, [CelScalar.DYN], CelScalar.BOOL, function (other) {
    return quantityType.expect(this).cmp(quantityType.expect(other)) > 0;
  }),
  celMethod("isLessThan", CelScalar.DYN, [CelScalar.DYN], CelScalar.BOOL, function (other) {
    return quantityType.expect(this).cmp(quantityType.expect(other)) < 0;
  }),
  celMethod("compareTo", CelScalar.DYN, [CelScalar.DYN], CelScalar.INT, function (other) {
    return BigInt(quantityType.expect(this).cmp(quantityType.expect(other)));
  }),
];
