import type { WatchTracker } from "./watch-tracker.js";

/** What resource handlers share across resources: limits and open watches. Admission runs inside the resource stores. */
export interface HandlerEnv {
  readonly maxBodyBytes: number;
  readonly watches: WatchTracker;
  /** Default watch duration range like kube-apiserver's `--min-request-timeout` (randomised up to twice this). */
  readonly minRequestTimeoutSeconds: number;
}
