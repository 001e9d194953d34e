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
} from "./ip.js";
export { validateCIDR, validateIP, validateIPv4Address, validateIPv6Address } from "./validation.js";
