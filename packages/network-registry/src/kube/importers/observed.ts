import { isNetworkRegistryError } from "../../errors.js";
import { parsePrefix } from "../../parse.js";
import type { ResourceReference } from "../../types.js";

/** What an observed range is used for: the two address spaces a cluster's own components hand out. */
export type ObservedUse = "services" | "pods";

/** Where a range was read: an object (`Node` `node-1`, `ServiceCIDR` `kubernetes`) or a flag (`Flag` `--cluster-cidr`). */
export interface ObservedSource {
  kind: string;
  name: string;
}

/** One range of address space the cluster is seen to use, with its owner. */
export interface ObservedRange {
  /** Canonical CIDR. */
  prefix: string;
  use: ObservedUse;
  /** The user of the range, as a claim record references it: `nodes/<name>` for a node's pod CIDR, `services` or `pods` otherwise. */
  reference: ResourceReference;
  source: ObservedSource;
  /** e.g. "pods of node node-1". */
  description: string;
  /** The fix-ups applied to a legacy spelling (Kubernetes accepts `10.0.0.1/24` in old fields; the range is `10.0.0.0/24`). */
  warnings: string[];
}

/** What one importer read. */
export interface ImportResult {
  ranges: ObservedRange[];
  /** Set when the source could not be read at all (the server does not serve it); nothing was judged from it. */
  skipped?: string;
  /** Values that are not CIDRs, each naming where it was; the rest is still imported. */
  problems: string[];
}

/**
 * Reads an existing configuration value the way Kubernetes' legacy fields accept it: a
 * non-canonical spelling is read as its canonical range with a warning, anything else is a problem.
 */
export function readObservedPrefix(text: unknown, where: string): { prefix: string; warnings: string[] } | { problem: string } {
  if (typeof text !== "string") return { problem: `${where}: expected a CIDR string, got ${JSON.stringify(text)}` };
  try {
    const { value, warnings } = parsePrefix(text, { lenient: true });
    return { prefix: value.toString(), warnings: warnings.map((w) => `${where}: ${w}`) };
  } catch (error) {
    if (!isNetworkRegistryError(error)) throw error;
    return { problem: `${where}: ${error.message}` };
  }
}
