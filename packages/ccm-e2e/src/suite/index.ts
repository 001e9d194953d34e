import type { SuiteTest } from "../framework/registry.js";
import { cloudNodeTests } from "./cloud-nodes.js";
import { upgradeSuiteTests } from "./cluster-upgrade.js";
import { etpLocalTests } from "./etp-local.js";
import { affinityTests } from "./lb-affinity.js";
import { internalLoadBalancerTests } from "./lb-internal.js";
import { lifecycleTests } from "./lb-lifecycle.js";
import { rollingUpdateTests } from "./lb-rolling-update.js";
import { sourceRangeTests } from "./lb-source-ranges.js";
import { udpPodCycleTests } from "./lb-udp-pod-cycles.js";
import { rebootTests } from "./reboot.js";
import { restartTests } from "./restart.js";
import { servicesTests } from "./services.js";

/** Every ported test, in the order a run takes them. */
export const SUITE: readonly SuiteTest[] = [
  ...cloudNodeTests,
  ...rebootTests,
  ...restartTests,
  ...lifecycleTests,
  ...affinityTests,
  ...sourceRangeTests,
  ...internalLoadBalancerTests,
  ...udpPodCycleTests,
  ...rollingUpdateTests,
  ...etpLocalTests,
  ...servicesTests,
  ...upgradeSuiteTests,
];
