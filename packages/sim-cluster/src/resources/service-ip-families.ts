import {
  fieldDuplicate,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  indexPath,
  type FieldError,
} from "@kubekit/generic-controlplane/registry";
import { familyOf, type ClusterIPAllocator, type IPFamily } from "../allocators/cluster-ip.js";
import type { Service } from "./services.js";

/**
 * Dual-stack Services: the rules kube-apiserver applies to `spec.clusterIP(s)`,
 * `spec.ipFamilies` and `spec.ipFamilyPolicy` (pkg/apis/core/validation and the service REST
 * storage's alloc.go), against the families the cluster's service ranges are of.
 */

const FAMILIES: IPFamily[] = ["IPv4", "IPv6"];
const POLICIES = ["PreferDualStack", "RequireDualStack", "SingleStack"];

/** The cluster's ClusterIP allocators: the primary range's family first (`--service-cluster-ip-range` "v4,v6"). */
export interface ClusterIPRanges {
  clusterIPs: ClusterIPAllocator;
  secondaryClusterIPs?: ClusterIPAllocator | undefined;
}

export function allocatorFor(ranges: ClusterIPRanges, family: string | undefined): ClusterIPAllocator | undefined {
  if (ranges.clusterIPs.family === family) return ranges.clusterIPs;
  return ranges.secondaryClusterIPs?.family === family ? ranges.secondaryClusterIPs : undefined;
}

const otherFamily = (family: string): IPFamily => (family === "IPv4" ? "IPv6" : "IPv4");
const same = (a: readonly string[] | undefined, b: readonly string[] | undefined): boolean =>
  JSON.stringify(a ?? []) === JSON.stringify(b ?? []);

/** isHeadlessService: `clusterIPs` is exactly `["None"]`. */
export function isHeadless(service: Service): boolean {
  const ips = service.spec?.clusterIPs ?? [];
  return ips.length === 1 && ips[0] === "None";
}

/** IsValidIP's message, as the field validators word it. */
const INVALID_IP = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";

/** ValidateService's family rules for an ExternalName service: none of the fields may be set. */
export function validateExternalNameFamilies(service: Service): FieldError[] {
  const spec = service.spec ?? {};
  const errors: FieldError[] = [];
  if (spec.clusterIP || (spec.clusterIPs ?? []).length > 0)
    errors.push(fieldForbidden("spec.clusterIPs", "may not be set for ExternalName services"));
  if ((spec.ipFamilies ?? []).length > 0) errors.push(fieldForbidden("spec.ipFamilies", "may not be set for ExternalName services"));
  if (spec.ipFamilyPolicy !== undefined) errors.push(fieldForbidden("spec.ipFamilyPolicy", "may not be set for ExternalName services"));
  return errors;
}

/** ValidateServiceClusterIPsRelatedFields: the fields on their own and against each other. */
export function validateClusterIPsRelatedFields(service: Service): FieldError[] {
  const spec = service.spec ?? {};
  if (spec.type === "ExternalName") return validateExternalNameFamilies(service);
  const errors: FieldError[] = [];
  const ips = spec.clusterIPs ?? [];
  if (spec.clusterIP) {
    if (ips.length === 0) errors.push(fieldRequired("spec.clusterIPs"));
    else if (ips[0] !== spec.clusterIP) errors.push(fieldInvalid("spec.clusterIPs", ips, "first value must match `clusterIP`"));
  } else if (ips.length > 0) {
    errors.push(fieldInvalid("spec.clusterIPs", ips, "must be empty when `clusterIP` is not specified"));
  }
  const families = spec.ipFamilies ?? [];
  const seen = new Set<string>();
  families.forEach((family, i) => {
    if (!(FAMILIES as string[]).includes(family)) errors.push(fieldNotSupported(indexPath("spec.ipFamilies", i), family, FAMILIES));
    if (seen.has(family)) errors.push(fieldDuplicate(indexPath("spec.ipFamilies", i), family));
    seen.add(family);
  });
  if (spec.ipFamilyPolicy !== undefined && !POLICIES.includes(spec.ipFamilyPolicy))
    errors.push(fieldNotSupported("spec.ipFamilyPolicy", spec.ipFamilyPolicy, POLICIES));
  let invalidIPs = false;
  ips.forEach((ip, i) => {
    if (i === 0 && ip === "None") {
      if (ips.length > 1) {
        invalidIPs = true;
        errors.push(fieldInvalid("spec.clusterIPs", ips, "'None' must be the first and only value"));
      }
      return;
    }
    if (familyOf(ip) === undefined) {
      invalidIPs = true;
      errors.push(fieldInvalid(indexPath("spec.clusterIPs", i), ip, INVALID_IP));
    }
  });
  if (ips.length > 2) errors.push(fieldInvalid("spec.clusterIPs", ips, "may only hold up to 2 values"));
  // Bad addresses would skew the rest (indexes, dual-stackness): stop here, as upstream.
  if (invalidIPs) return errors;
  if (ips.length > 1 && new Set(ips.map(familyOf)).size !== ips.length) {
    errors.push(fieldInvalid("spec.clusterIPs", ips, "may specify no more than one IP for each IP family"));
  }
  if (!isHeadless(service)) {
    ips.forEach((ip, i) => {
      const family = families[i];
      if (family === undefined) return;
      if (family === "IPv4" && familyOf(ip) === "IPv6")
        errors.push(fieldInvalid(indexPath("spec.clusterIPs", i), ip, `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``));
      if (family === "IPv6" && familyOf(ip) !== "IPv6")
        errors.push(fieldInvalid(indexPath("spec.clusterIPs", i), ip, `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``));
    });
  }
  return errors;
}

/** validateUpgradeDowngradeClusterIPs and validateUpgradeDowngradeIPFamilies: the primary stays; releasing the secondary takes `SingleStack`. */
export function validateUpgradeDowngrade(service: Service, old: Service): FieldError[] {
  const errors: FieldError[] = [];
  if (service.spec?.type === "ExternalName" || old.spec?.type === "ExternalName") return errors;
  const newHeadless = isHeadless(service);
  const oldHeadless = isHeadless(old);
  const policy = service.spec?.ipFamilyPolicy;
  const ips = service.spec?.clusterIPs ?? [];
  const oldIPs = old.spec?.clusterIPs ?? [];
  if (!(oldHeadless && newHeadless)) {
    if (oldIPs.length === ips.length) {
      oldIPs.forEach((ip, i) => {
        if (ip !== ips[i]) errors.push(fieldInvalid(indexPath("spec.clusterIPs", i), ips, "may not change once set"));
      });
    } else if (oldIPs.length > ips.length) {
      if (ips.length === 0) errors.push(fieldInvalid("spec.clusterIPs[0]", ips, "primary clusterIP can not be unset"));
      else if (oldIPs.length > 0 && ips[0] !== oldIPs[0]) errors.push(fieldInvalid("spec.clusterIPs[0]", ips, "may not change once set"));
      if (ips.length === 1 && policy !== "SingleStack")
        errors.push(
          fieldInvalid("spec.ipFamilyPolicy", policy ?? null, "must be set to 'SingleStack' when releasing the secondary clusterIP"),
        );
    } else if (oldIPs.length > 0 && ips[0] !== oldIPs[0]) {
      errors.push(fieldInvalid("spec.clusterIPs[0]", ips, "may not change once set"));
    }
  }
  // Headless services may change families; so may one becoming or ceasing to be headless.
  if (newHeadless || oldHeadless) return errors;
  const families = service.spec?.ipFamilies ?? [];
  const oldFamilies = old.spec?.ipFamilies ?? [];
  if (oldFamilies.length === families.length) {
    if (oldFamilies.some((family, i) => family !== families[i]))
      errors.push(fieldInvalid("spec.ipFamilies[0]", families, "may not change once set"));
  } else if (oldFamilies.length > families.length) {
    if (ips.length === 0) errors.push(fieldInvalid("spec.ipFamilies[0]", families, "primary ipFamily can not be unset"));
    if (families.length > 0 && families[0] !== oldFamilies[0])
      errors.push(fieldInvalid("spec.ipFamilies[0]", ips, "may not change once set"));
    if (families.length === 1 && policy !== "SingleStack")
      errors.push(
        fieldInvalid("spec.ipFamilyPolicy", policy ?? null, "must be set to 'SingleStack' when releasing the secondary ipFamily"),
      );
  } else if (oldFamilies.length > 0 && families.length > 0 && families[0] !== oldFamilies[0]) {
    errors.push(fieldInvalid("spec.ipFamilies[0]", ips, "may not change once set"));
  }
  return errors;
}

/**
 * isMatchingPreferDualStackClusterIPFields: a PreferDualStack service written back as it was is
 * neither upgraded nor downgraded, whatever the cluster's families are now.
 */
export function keepsPreferDualStack(service: Service, old: Service | undefined): boolean {
  if (old === undefined || service.spec?.ipFamilyPolicy === undefined) return false;
  const type = service.spec.type;
  if (old.spec?.type !== type || type === "ExternalName") return false;
  if (
    service.spec.ipFamilyPolicy !== "PreferDualStack" ||
    (old.spec?.ipFamilyPolicy !== undefined && old.spec.ipFamilyPolicy !== "PreferDualStack")
  )
    return false;
  return same(service.spec.clusterIPs, old.spec?.clusterIPs) && same(service.spec.ipFamilies, old.spec?.ipFamilies);
}

/**
 * initIPFamilyFields: defaults `ipFamilyPolicy` (the old one on update; RequireDualStack for a
 * headless service without selector; else SingleStack) and `ipFamilies` (from the clusterIPs
 * asked for, else the primary range's family, plus the other family when the policy asks for
 * dual-stack and the cluster has it), and refuses what the cluster cannot give.
 */
export function initIPFamilyFields(service: Service, old: Service | undefined, ranges: ClusterIPRanges): FieldError[] {
  const spec = (service.spec ??= {});
  if (spec.type === "ExternalName" || keepsPreferDualStack(service, old)) return [];
  const selectorless = Object.keys(spec.selector ?? {}).length === 0;
  if (spec.ipFamilyPolicy === undefined) {
    if (old?.spec?.ipFamilyPolicy !== undefined) spec.ipFamilyPolicy = old.spec.ipFamilyPolicy;
    else spec.ipFamilyPolicy = spec.clusterIP === "None" && selectorless ? "RequireDualStack" : "SingleStack";
  }
  const errors: FieldError[] = [];
  if (old !== undefined) {
    if (spec.ipFamilyPolicy === "SingleStack") {
      // Asking for single-stack with the fields as they were is clear intent: the secondary goes.
      if (same(spec.clusterIPs, old.spec?.clusterIPs) && (spec.clusterIPs ?? []).length > 1) spec.clusterIPs = spec.clusterIPs!.slice(0, 1);
      if (same(spec.ipFamilies, old.spec?.ipFamilies) && (spec.ipFamilies ?? []).length > 1) spec.ipFamilies = spec.ipFamilies!.slice(0, 1);
    } else {
      const reduced = (now: readonly string[] | undefined, before: readonly string[] | undefined) =>
        (now ?? []).length > 0 && (now ?? []).length < (before ?? []).length;
      if (reduced(spec.clusterIPs, old.spec?.clusterIPs))
        errors.push(fieldInvalid("spec.ipFamilyPolicy", spec.ipFamilyPolicy, "must be 'SingleStack' to release the secondary cluster IP"));
      if (reduced(spec.ipFamilies, old.spec?.ipFamilies))
        errors.push(fieldInvalid("spec.ipFamilyPolicy", spec.ipFamilyPolicy, "must be 'SingleStack' to release the secondary IP family"));
    }
  }
  if (spec.ipFamilyPolicy === "SingleStack") {
    if ((spec.clusterIPs ?? []).length === 2)
      errors.push(
        fieldInvalid(
          "spec.ipFamilyPolicy",
          spec.ipFamilyPolicy,
          "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified",
        ),
      );
    if ((spec.ipFamilies ?? []).length === 2)
      errors.push(
        fieldInvalid(
          "spec.ipFamilyPolicy",
          spec.ipFamilyPolicy,
          "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified",
        ),
      );
  }
  const ips = spec.clusterIPs ?? [];
  for (let i = 0; i < ips.length && ips[i] !== "None"; i++) {
    if (i < (spec.ipFamilies ?? []).length) continue;
    const family = familyOf(ips[i]!)!;
    if (allocatorFor(ranges, family) === undefined)
      errors.push(fieldInvalid(indexPath("spec.clusterIPs", i), ips, `${family} is not configured on this cluster`));
    else spec.ipFamilies = [...(spec.ipFamilies ?? []), family];
  }
  if (errors.length > 0) return errors;
  if (spec.clusterIP === "None" && selectorless) {
    // Headless without selector: no address is allocated, so any family may be asked for.
    if ((spec.ipFamilies ?? []).length === 0) spec.ipFamilies = [ranges.clusterIPs.family];
    if (spec.ipFamilies!.length < 2 && spec.ipFamilyPolicy !== "SingleStack")
      spec.ipFamilies = [...spec.ipFamilies!, otherFamily(spec.ipFamilies![0]!)];
    return [];
  }
  if (spec.ipFamilyPolicy === "RequireDualStack" && ranges.secondaryClusterIPs === undefined) {
    errors.push(fieldInvalid("spec.ipFamilyPolicy", spec.ipFamilyPolicy, "this cluster is not configured for dual-stack services"));
  }
  (spec.ipFamilies ?? []).forEach((family, i) => {
    if (allocatorFor(ranges, family) === undefined)
      errors.push(fieldInvalid(indexPath("spec.ipFamilies", i), family, "not configured on this cluster"));
  });
  if (errors.length > 0) return errors;
  if ((spec.ipFamilies ?? []).length === 0) spec.ipFamilies = [ranges.clusterIPs.family];
  if (spec.ipFamilyPolicy !== "SingleStack" && spec.ipFamilies!.length === 1 && ranges.secondaryClusterIPs !== undefined) {
    spec.ipFamilies = [...spec.ipFamilies!, otherFamily(spec.ipFamilies![0]!)];
  }
  return [];
}
