import { parsePrefix } from "../../parse.js";
import { readObservedPrefix, type ImportResult, type ObservedRange, type ObservedUse } from "./observed.js";

/** The kube-controller-manager flags that declare address space. */
export interface ControllerManagerFlags {
  /** `--cluster-cidr`: the pod range node CIDRs come from; one CIDR, or two for dual-stack (`10.244.0.0/16,fd00:10:244::/56`). */
  clusterCIDR?: string;
  /** `--service-cluster-ip-range`: the service range; one CIDR, or two for dual-stack. */
  serviceClusterIPRange?: string;
}

const FLAGS: readonly { flag: string; key: keyof ControllerManagerFlags; use: ObservedUse }[] = [
  { flag: "--cluster-cidr", key: "clusterCIDR", use: "pods" },
  { flag: "--service-cluster-ip-range", key: "serviceClusterIPRange", use: "services" },
];

/**
 * Picks the address flags out of a kube-controller-manager command line (as in its static pod
 * manifest): `--cluster-cidr=…` or `--cluster-cidr …`; other flags are ignored, the last
 * occurrence wins as with Go's flag package.
 */
export function controllerManagerFlagsFromArgs(args: readonly string[]): ControllerManagerFlags {
  const flags: ControllerManagerFlags = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!.replace(/^--?/, "--");
    for (const { flag, key } of FLAGS) {
      if (arg.startsWith(`${flag}=`)) flags[key] = arg.slice(flag.length + 1);
      else if (arg === flag && i + 1 < args.length) flags[key] = args[++i]!;
    }
  }
  return flags;
}

/**
 * The ranges kube-controller-manager is configured with. A flag value is a comma-separated list
 * validated as kube-controller-manager validates it (at most two CIDRs, and two only when one is
 * IPv4 and the other IPv6); legacy spellings are read with a warning, as its sloppy parser does.
 */
export function importControllerManagerFlags(flags: ControllerManagerFlags): ImportResult {
  const ranges: ObservedRange[] = [];
  const problems: string[] = [];
  for (const { flag, key, use } of FLAGS) {
    const value = flags[key];
    if (value === undefined) continue;
    const parsed: { prefix: string; warnings: string[] }[] = [];
    const items = value.split(",");
    items.forEach((item, i) => {
      const read = readObservedPrefix(item, items.length > 1 ? `${flag}[${i}]` : flag);
      if ("problem" in read) problems.push(read.problem);
      else parsed.push(read);
    });
    if (parsed.length !== items.length) continue;
    if (items.length > 2) {
      problems.push(`${flag}: ${value}: at most two CIDRs are allowed (one per IP family), got ${items.length}`);
      continue;
    }
    if (items.length === 2 && parsePrefix(parsed[0]!.prefix).family === parsePrefix(parsed[1]!.prefix).family) {
      problems.push(`${flag}: ${value}: two CIDRs must be dual-stack (one IPv4 and one IPv6)`);
      continue;
    }
    for (const { prefix, warnings } of parsed) {
      ranges.push({
        prefix,
        use,
        reference: { group: "", resource: use },
        source: { kind: "Flag", name: flag },
        description: `${use} (kube-controller-manager ${flag})`,
        warnings,
      });
    }
  }
  return { ranges, problems };
}
