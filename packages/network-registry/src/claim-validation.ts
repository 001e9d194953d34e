import { isNetworkRegistryError } from "./errors.js";
import { parsePrefix } from "./parse.js";
import type { Prefix } from "./prefix.js";
import type { AddressRecord, NetworkClaim } from "./types.js";

export const MAX_DESCRIPTION_LENGTH = 255;

/** DNS subdomain (RFC 1123), as Kubernetes requires for object names. */
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export interface ValidatedRecord {
  record: AddressRecord;
  prefix: Prefix;
  parentPrefix: Prefix | undefined;
}

/** Checks shape and syntax of a claim; returns the problems (empty when valid) and the parsed records. */
export function validateClaim(claim: unknown): { problems: string[]; records: ValidatedRecord[] } {
  const problems: string[] = [];
  const records: ValidatedRecord[] = [];
  if (typeof claim !== "object" || claim === null) return { problems: ["a NetworkClaim must be an object"], records };
  const c = claim as Partial<NetworkClaim>;
  const name = c.metadata?.name;
  if (typeof name !== "string" || name.length === 0 || name.length > 253 || !DNS_SUBDOMAIN.test(name)) {
    problems.push(`metadata.name ${JSON.stringify(name)} must be a DNS subdomain (lower case alphanumerics, '-' and '.')`);
  }
  const space = c.spec?.addressSpace;
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
    const ref = record.reference;
    if (typeof ref !== "object" || ref === null || typeof ref.group !== "string" || typeof ref.resource !== "string" || ref.resource === "") {
      problems.push(`${at}.reference must have a string group ("" for core) and a non-empty resource`);
    }
    if (record.description !== undefined && (typeof record.description !== "string" || record.description.length > MAX_DESCRIPTION_LENGTH)) {
      problems.push(`${at}.description must be a string of at most ${MAX_DESCRIPTION_LENGTH} characters`);
    }
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
