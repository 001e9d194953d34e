// Kubernetes' rules for values, each implemented once: every other package imports them from here.
export { VERSION } from "./version.js";
export { parseGoDuration } from "./go-duration.js";
export { Quantity, QuantityError, MAX_EXPONENT, QUANTITY_FORMAT_MESSAGE, QUANTITY_NUMERIC_MESSAGE, QUANTITY_SUFFIX_MESSAGE, type QuantityErrorCode, type QuantityFormat } from "./quantity/index.js";
// Value rules and field errors (k8s.io/apimachinery/pkg/util/validation and its field package).
export * from "./validation/names.js";
export * from "./validation/messages.js";
export * from "./validation/field.js";
export * from "./validation/labels.js";
export * from "./labels/index.js";
