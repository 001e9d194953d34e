import { describeValue } from "./describe-value.js";
import { isNetworkRegistryError } from "./errors.js";
import { parsePrefix } from "./parse.js";
import type { Prefix } from "./prefix.js";
import type { AddressRecord, NetworkClaim, ResourceReference } from "./types.js";

export const MAX_DESCRIPTION_LENGTH = 255;

/** DNS subdomain (RFC 1123), as Kubernetes requires for object names. */
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export interface ValidatedRecord {
  record: AddressRecord;
  prefix: Prefix;
  parentPrefix: Prefix | undefined;
}

/** The problem with a claim name, or undefined when it is a DNS subdomain. */
export function nameProblem(name: unknown, field = "metadata.name"): string | undefined {
  if (typeof name === "string" && name.length > 0 && name.length <= 253 && DNS_SUBDOMAIN.test(name)) return undefined;
  return `${field} ${describeValue(name)} must be a DNS subdomain (lower case alphanumerics, '-' and '.')`;
}

/** The problem with a record's reference, or undefined. */
export function referenceProblem(ref: unknown, field: string): string | undefined {
  const r = ref as Partial<ResourceReference> | null | undefined;
  if (typeof r !== "object" || r === null || typeof r.group !== "string" || typeof r.resource !== "string" || r.resource === "") {
    return `${field} must have a string group ("" for core) and a non-empty resource`;
  }
  for (const key of ["namespace", "name", "uid"] as const) {
    if (r[key] !== undefined && typeof r[key] !== "string") return `${field}.${key} must be a string`;
  }
  return undefined;
}

/** The problem with a description, or undefined. */
export function descriptionProblem(description: unknown, field: string): string | undefined {
  if (description === undefined || (typeof description === "string" && description.length <= MAX_DESCRIPTION_LENGTH)) return undefined;
  return `${field} must be a string of at most ${MAX_DESCRIPTION_LENGTH} characters`;
}

/** Checks shape and syntax of a claim; returns the problems (empty when valid) and the parsed records. */
export function validateClaim(claim: unknown): { problems: string[]; records: ValidatedRecord[] } {
  const problems: string[] = [];
  const records: ValidatedRecord[] = [];
  if (typeof claim !== "object" || claim === null) return { problems: ["a NetworkClaim must be an object"], records };
  const c = claim as Partial<NetworkClaim>;
  if (typeof c.metadata !== "object" || c.metadata === null) problems.push("metadata must be an object with a name");
  else {
    const problem = nameProblem(c.metadata.name);
    if (problem !== undefined) problems.push(problem);
    for (const field of ["labels", "annotations"] as const) {
      const map: unknown = c.metadata[field];
      if (
        map !== undefined &&
        (typeof map !== "object" || map === null || Array.isArray(map) || Object.values(map).some((v) => typeof v !== "string"))
      ) {
        problems.push(`metadata.${field} must map strings to strings`);
      }
    }
  }
  const space = typeof c.spec === "object" && c.spec !== null ? c.spec.addressSpace : undefined;
  if (!Array.isArray(space)) {
    problems.push("spec.addressSpace must be a list of address records");
    return { problems, records };
  }
  const seen = new Set<string>();
  space.forEach((raw: unknown, i) => {
    const at = `spec.addressSpace[${i}]`;
    if (typeof raw !== "object" || raw === null) {
      problems.push(`${at} must be an object`);
      return;
    }
    const record = raw as Partial<AddressRecord>;
    const referenceIssue = referenceProblem(record.reference, `${at}.reference`);
    if (referenceIssue !== undefined) problems.push(referenceIssue);
    const descriptionIssue = descriptionProblem(record.description, `${at}.description`);
    if (descriptionIssue !== undefined) problems.push(descriptionIssue);
    if (record.status !== undefined && record.status !== "allocated" && record.status !== "unavailable") {
      problems.push(`${at}.status must be allocated or unavailable`);
    }
    if (record.delegateTo !== undefined && (!Array.isArray(record.delegateTo) || record.delegateTo.some((d) => typeof d !== "string"))) {
      problems.push(`${at}.delegateTo must be a list of claim names or "*"`);
    }
    let prefix: Prefix | undefined;
    try {
      prefix = parsePrefix(record.prefix as string);
    } catch (error) {
      problems.push(`${at}.prefix: ${isNetworkRegistryError(error) ? error.message : String(error)}`);
    }
    let parentPrefix: Prefix | undefined;
    if (record.parent !== undefined) {
      if (typeof record.parent !== "object" || record.parent === null || typeof record.parent.claim !== "string") {
        problems.push(`${at}.parent must name a claim and a prefix`);
      } else {
        const parentName = nameProblem(record.parent.claim, `${at}.parent.claim`);
        if (parentName !== undefined) problems.push(parentName);
        try {
          parentPrefix = parsePrefix(record.parent.prefix);
        } catch (error) {
          problems.push(`${at}.parent.prefix: ${isNetworkRegistryError(error) ? error.message : String(error)}`);
        }
      }
      if (record.status === "unavailable") problems.push(`${at}: a carve-out (status unavailable) cannot have a parent`);
    }
    if (prefix !== undefined) {
      const key = prefix.toString();
      if (seen.has(key)) problems.push(`${at}.prefix ${key} appears twice in the claim`);
      seen.add(key);
      records.push({ record: record as AddressRecord, prefix, parentPrefix });
    }
  });
  return { problems, records };
}
