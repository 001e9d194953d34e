export { VERSION } from "./version.js";
export { CcmE2eError, isCcmE2eError, type CcmE2eErrorCode } from "./errors.js";
export {
  CAPABILITY_NAMES,
  type Capabilities,
  type CapabilityName,
  type CcmDriver,
  type CloudLoadBalancer,
  type DriverHookName,
  type DriverRunContext,
  type NodeRef,
  type ProbeResponse,
  type Protocol,
  type RebootMode,
  type ServiceRef,
  type TestInfo,
  type TestOutcome,
  type Timeouts,
  type TrafficClient,
} from "./driver/types.js";
export { DEFAULT_TIMEOUTS, resolveTimeouts } from "./driver/timeouts.js";
export { yamlDriver, loadYamlDriver, type YamlDriverOptions } from "./driver/yaml-driver.js";
export { loadDriver, validateDriver } from "./driver/load.js";
export { hostTraffic } from "./driver/host-traffic.js";
