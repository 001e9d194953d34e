export { VERSION } from "./version.js";
export { CcmE2eError, isCcmE2eError, type CcmE2eErrorCode } from "./errors.js";
export {
  CAPABILITY_NAMES,
  type Capabilities,
  type CapabilityName,
  type CcmDriver,
  type CloudLoadBalancer,
  type DriverHookName,
  type DowngradePart,
  type DriverRunContext,
  type InternalLoadBalancerRequest,
  type NetworkDirection,
  type NodeRef,
  type ProbeOptions,
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
export { parseLabelFilter, type LabelFilter } from "./framework/label-filter.js";
export { labelsOf, missingRequirements, selectTests, type Selection, type SuiteTest } from "./framework/registry.js";
export type { TestContext } from "./framework/context.js";
export { fail, expectEqual, skip } from "./framework/assert.js";
export { poll, type PollOptions } from "./framework/poll.js";
export {
  TestJig,
  setServiceType,
  AGNHOST_IMAGE,
  LOAD_BALANCER_CLEANUP_FINALIZER,
  defaultLoadBalancerName,
  ingressPoint,
  serviceRef,
  type ServiceTweak,
} from "./framework/jig.js";
export {
  testReachableHTTP,
  testNotReachableHTTP,
  testReachableUDP,
  testNotReachableUDP,
  checkAffinity,
  AFFINITY_CONFIRM_COUNT,
} from "./framework/reachability.js";
export type { Service, ServicePort, Node, Pod } from "./framework/resources.js";
export { runSuite, type RunSuiteOptions, type SuiteReporter } from "./runner/run-suite.js";
export type { SuiteResult, TestResult, TestState } from "./runner/result.js";
export { renderJunit, writeJunit, type JunitProperties } from "./runner/junit.js";
export { progressReporter, summary } from "./runner/progress.js";
export { jsonReport, type JsonSuiteReport, type JsonTestReport } from "./runner/json-report.js";
export { renderHtmlReport, writeHtmlReport } from "./runner/html-report.js";
export { SUITE } from "./suite/index.js";
