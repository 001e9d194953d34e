export { VERSION } from "./version.js";
export { BalloonError, isBalloonError, type BalloonErrorCode } from "./errors.js";
export { Quantity } from "./quantity.js";
export { MAX_EXPONENT, type QuantityFormat } from "./quantity-parse.js";
