// Kubernetes' rules for values, each implemented once: every other package imports them from here.
export { VERSION } from "./version.js";
export { parseGoDuration } from "./go-duration.js";
export {
  Quantity,
  QuantityError,
  MAX_EXPONENT,
  QUANTITY_FORMAT_MESSAGE,
  QUANTITY_NUMERIC_MESSAGE,
  QUANTITY_SUFFIX_MESSAGE,
  type QuantityErrorCode,
  type QuantityFormat,
} from "./quantity/index.js";
// Value rules and field errors (k8s.io/apimachinery/pkg/util/validation and its field package).
export * from "./validation/names.js";
export * from "./validation/messages.js";
export * from "./validation/field.js";
export * from "./validation/labels.js";
export * from "./labels/index.js";
export { cloneJson, isJsonObject, ownValue, setOwn, type JsonObject, type JsonValue } from "./json/json-value.js";
export { jsonEqual, type JsonEqualRules, type UndefinedRule } from "./json/json-equal.js";
export { applyMergePatch } from "./json/merge-patch.js";
export { stableStringify } from "./json/stable-stringify.js";
export { isPodActive, isPodPhaseTerminal, isPodTerminal, type PodLifecycle } from "./pods.js";
export {
  formatIP,
  formatPrefix,
  isGlobalUnicast,
  isLinkLocalMulticast,
  isLinkLocalUnicast,
  isLoopback,
  isMulticast,
  isUnspecified,
  maskedPrefix,
  parseCIDRSloppy,
  parseIP,
  parseIPSloppy,
  parsePrefix,
  prefixContains,
  type IPAddress,
  type IPPrefix,
} from "./net/ip.js";
export {
  formatIPv6Words,
  IPV6_CANONICAL,
  IPV6_INVALID,
  IPV6_VALID,
  scanIPv4,
  scanIPv6,
  type IPTextForm,
  type IPv6Scan,
} from "./net/scan.js";
export { validateCIDR, validateIP, validateIPv4Address, validateIPv6Address } from "./net/validation.js";
