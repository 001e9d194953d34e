/**
 * Resource quantities as apimachinery reads them: the generic control plane's parser (exact
 * milli-units in a bigint), plus the sums the scheduler and kubelets take over pods.
 */
import { parseMilli, quantityText } from "@kubekit/generic-controlplane/registry";

export { parseMilli, quantityText } from "@kubekit/generic-controlplane/registry";

/** Sums the named resource over requests maps, in milli-units. */
export function sumMilli(maps: readonly (Record<string, unknown> | undefined)[], resource: string): bigint {
  let total = 0n;
  for (const map of maps) {
    const text = quantityText(map?.[resource]);
    const milli = text === undefined ? undefined : parseMilli(text);
    if (milli !== undefined) total += milli;
  }
  return total;
}
