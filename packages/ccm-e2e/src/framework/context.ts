import type { KubeClient } from "@kubekit/client";
import type { CcmDriver, Timeouts, TrafficClient } from "../driver/types.js";

/** What a test body gets: the cluster, its own namespace, the driver and the run's timeouts. */
export interface TestContext {
  /** The test's full name. */
  readonly name: string;
  readonly client: KubeClient;
  /** A namespace created for this test and deleted after it. */
  readonly namespace: string;
  readonly driver: CcmDriver;
  readonly timeouts: Timeouts;
  /** The vantage point "outside" the cluster (the driver's, else the test host). */
  readonly external: TrafficClient;
  /** A vantage point inside the cluster network (the exec pod upstream): the driver's, else agnhost dialer pods reached through `pods/proxy`. */
  readonly inCluster: TrafficClient;
  /** The version the upgrade tests move the cluster to (`--upgrade-target`, without its `v`), if the run gave one. */
  readonly upgradeTarget: string | undefined;
  /** Aborted when the test times out or the run is interrupted. */
  readonly signal: AbortSignal;
  /** A step of the test (`ginkgo.By`), shown in the report. */
  step(text: string): void;
  log(text: string): void;
  /** Registers cleanup run after the test in reverse order, also when it failed or was interrupted. */
  defer(cleanup: () => Promise<void>): void;
}
