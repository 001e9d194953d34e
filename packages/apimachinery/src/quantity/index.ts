// Resource quantities (k8s.io/apimachinery/pkg/api/resource).
export { Quantity } from "./quantity.js";
export { MAX_EXPONENT, type QuantityFormat } from "./parse.js";
export {
  QUANTITY_FORMAT_MESSAGE,
  QUANTITY_NUMERIC_MESSAGE,
  QUANTITY_SUFFIX_MESSAGE,
  QuantityError,
  type QuantityErrorCode,
} from "./errors.js";
