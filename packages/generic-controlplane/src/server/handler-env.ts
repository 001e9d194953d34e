import type { AdmissionPlugin } from "../registry/types.js";
import type { HandlerCodecs } from "./served-resource.js";
import type { WatchTracker } from "./watch-tracker.js";

/** What resource handlers share: codecs, admission and limits. */
export interface HandlerEnv {
  readonly codecs: HandlerCodecs;
  readonly admission: readonly AdmissionPlugin[];
  readonly maxBodyBytes: number;
  readonly watches: WatchTracker;
  /** Default watch duration range like kube-apiserver's `--min-request-timeout` (randomised up to twice this). */
  readonly minRequestTimeoutSeconds: number;
}
