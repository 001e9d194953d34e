import type { CcmDriver, Timeouts } from "./types.js";

const MINUTE = 60_000;

/** Upstream's values (`test/e2e/framework/service/const.go`, `reboot.go`, `nodes.go`). */
export const DEFAULT_TIMEOUTS: Readonly<Timeouts> = Object.freeze({
  lbCreate: 15 * MINUTE,
  lbLag: 2 * MINUTE,
  lbPropagation: 10 * MINUTE,
  lbCleanup: 15 * MINUTE,
  kubeProxyLag: 5 * MINUTE,
  kubeProxyEndpointLag: 30_000,
  affinity: 22 * MINUTE,
  podStart: 5 * MINUTE,
  nodeNotReady: 2 * MINUTE,
  nodeReadyAgain: 5 * MINUTE,
  nodeDeleted: 5 * MINUTE,
  namespaceDelete: 5 * MINUTE,
  test: 60 * MINUTE,
  hook: 5 * MINUTE,
  upgrade: 30 * MINUTE,
});

/** The timeouts a run uses: each default scaled by `timeoutScale`, then the driver's overrides. */
export function resolveTimeouts(driver: Pick<CcmDriver, "timeouts" | "timeoutScale">): Timeouts {
  const scale = driver.timeoutScale ?? 1;
  const resolved = {} as Timeouts;
  for (const key of Object.keys(DEFAULT_TIMEOUTS) as (keyof Timeouts)[]) {
    resolved[key] = driver.timeouts?.[key] ?? Math.round(DEFAULT_TIMEOUTS[key] * scale);
  }
  return resolved;
}
