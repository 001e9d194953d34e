import { isLinkLocalMulticast, isLinkLocalUnicast, isLoopback, isUnspecified, parseIPSloppy, validateIP } from "@kubekit/apimachinery";
import { fieldInvalid, type FieldError } from "@kubekit/generic-controlplane/registry";

/** How endpoint addresses are checked beyond their syntax. */
export interface EndpointAddressRules {
  /**
   * Accept addresses in 127.0.0.0/8. Upstream refuses them (ValidateNonSpecialIP); a cluster in
   * traffic mode gives its pods loopback addresses, so its endpoints carry them.
   */
  allowLoopback?: boolean;
}

/**
 * ValidateNonSpecialIP: an endpoint may not point at the unspecified address, loopback or
 * link-local ranges, with upstream's messages. The address is read as ParseIPSloppy reads it, so
 * `127.000.000.001` and `::ffff:127.0.0.1` are loopback too.
 */
export function validateNonSpecialIP(ip: string, field: string, rules: EndpointAddressRules = {}): FieldError[] {
  const address = parseIPSloppy(ip);
  if (address === undefined) return [fieldInvalid(field, ip, "must be a valid IP address")];
  if (isUnspecified(address)) return [fieldInvalid(field, ip, "may not be unspecified (0.0.0.0, ::)")];
  if (isLoopback(address) && !rules.allowLoopback)
    return [fieldInvalid(field, ip, "may not be in the loopback range (127.0.0.0/8, ::1/128)")];
  if (isLinkLocalUnicast(address)) return [fieldInvalid(field, ip, "may not be in the link-local range (169.254.0.0/16, fe80::/10)")];
  if (isLinkLocalMulticast(address))
    return [fieldInvalid(field, ip, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)")];
  return [];
}

/** The address of a core/v1 Endpoints subset: any valid IP that is not special. */
export function validateEndpointIP(ip: string, field: string, rules: EndpointAddressRules = {}): FieldError[] {
  const invalid = validateIP(ip);
  if (invalid.length > 0) return invalid.map((message) => fieldInvalid(field, ip, message));
  return validateNonSpecialIP(ip, field, rules);
}
