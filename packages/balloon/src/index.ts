export { VERSION } from "./version.js";
export { BalloonError, isBalloonError, type BalloonErrorCode } from "./errors.js";
export { Quantity } from "./quantity.js";
export { MAX_EXPONENT, type QuantityFormat } from "./quantity-parse.js";
export {
  amountOf,
  clampResourceList,
  fits,
  formatResourceList,
  isResourceName,
  maxResourceLists,
  parseResourceList,
  pickResources,
  resourceList,
  resourceListStrings,
  resourceListsEqual,
  shortfalls,
  subtractResourceLists,
  sumResourceLists,
  type ResourceList,
  type ResourceListInput,
  type Shortfall,
} from "./resource-list.js";
