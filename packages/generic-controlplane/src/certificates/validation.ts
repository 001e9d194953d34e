import { x509 } from "../certs/x509.js";
import type { FieldError } from "../validation/field-errors.js";
import { fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired } from "../validation/field-errors.js";
import { CONDITION_APPROVED, CONDITION_DENIED, CONDITION_FAILED, LEGACY_UNKNOWN_SIGNER, type CertificateSigningRequest } from "./types.js";

/** Upstream `certificates.KeyUsage` values. */
export const KEY_USAGES = [
  "signing",
  "digital signature",
  "content commitment",
  "key encipherment",
  "key agreement",
  "data encipherment",
  "cert sign",
  "crl sign",
  "encipher only",
  "decipher only",
  "any",
  "server auth",
  "client auth",
  "code signing",
  "email protection",
  "s/mime",
  "ipsec end system",
  "ipsec tunnel",
  "ipsec user",
  "timestamping",
  "ocsp signing",
  "microsoft sgc",
  "netscape sgc",
];

const MIN_EXPIRATION_SECONDS = 600;

/** The PEM text of a base64 `[]byte` field, or undefined when it is not base64. */
export function pemOf(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  return Buffer.from(value, "base64").toString("latin1");
}

/** The CSR parsed from PEM, or the reason it is not one (upstream `ParseCSR`'s errors). */
export function parseRequest(pem: string): x509.Pkcs10CertificateRequest | string {
  const match = /-----BEGIN ([A-Z ]+)-----([\s\S]*?)-----END \1-----/.exec(pem);
  if (match === null) return "PEM block type must be CERTIFICATE REQUEST";
  if (match[1] !== "CERTIFICATE REQUEST") return "PEM block type must be CERTIFICATE REQUEST";
  try {
    return new x509.Pkcs10CertificateRequest(match[0]);
  } catch (error) {
    return `asn1: ${(error as Error).message}`;
  }
}

/** upstream `validateSignerName`: a qualified name with a domain-prefixed path. */
function validateSignerName(path: string, signerName: string | undefined): FieldError[] {
  if (signerName === undefined || signerName === "") return [fieldRequired(path, "")];
  if (signerName === LEGACY_UNKNOWN_SIGNER)
    return [fieldInvalid(path, signerName, "the legacy signerName is not allowed via this API version")];
  const segments = signerName.split("/");
  if (segments.length < 2)
    return [fieldInvalid(path, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  const errors: FieldError[] = [];
  const domain = segments[0]!;
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(domain) || domain.length > 253) {
    errors.push(fieldInvalid(path, signerName, "the domain portion of the signerName must be a valid DNS subdomain"));
  }
  if (segments.slice(1).some((segment) => segment === ""))
    errors.push(fieldInvalid(path, signerName, "the path of the signerName must not have empty segments"));
  return errors;
}

/** upstream `ValidateCertificateSigningRequestCreate` (certificates.k8s.io/v1). */
export function validateCertificateSigningRequest(csr: CertificateSigningRequest): FieldError[] {
  const errors: FieldError[] = [];
  const spec = csr.spec ?? {};
  if (spec.request === undefined || spec.request === "") errors.push(fieldRequired("spec.request", ""));
  else {
    const parsed = parseRequest(pemOf(spec.request) ?? "");
    if (typeof parsed === "string") errors.push(fieldInvalid("spec.request", spec.request, parsed));
  }
  errors.push(...validateSignerName("spec.signerName", spec.signerName));
  if (spec.expirationSeconds !== undefined && spec.expirationSeconds < MIN_EXPIRATION_SECONDS) {
    errors.push(
      fieldInvalid(
        "spec.expirationSeconds",
        spec.expirationSeconds,
        `may not specify a duration less than ${MIN_EXPIRATION_SECONDS} seconds (10 minutes)`,
      ),
    );
  }
  const usages = spec.usages ?? [];
  if (usages.length === 0) errors.push(fieldRequired("spec.usages", ""));
  const seen = new Set<string>();
  usages.forEach((usage, i) => {
    if (!KEY_USAGES.includes(usage)) errors.push(fieldNotSupported(`spec.usages[${i}]`, usage, KEY_USAGES));
    if (seen.has(usage)) errors.push(fieldDuplicate(`spec.usages[${i}]`, usage));
    seen.add(usage);
  });
  errors.push(...validateStatus(csr));
  return errors;
}

/** upstream `validateConditions` and `validateCertificate`. */
function validateStatus(csr: CertificateSigningRequest): FieldError[] {
  const errors: FieldError[] = [];
  const conditions = csr.status?.conditions ?? [];
  const seen = new Set<string>();
  conditions.forEach((condition, i) => {
    const path = `status.conditions[${i}]`;
    const type = condition.type ?? "";
    if (type === "") errors.push(fieldRequired(`${path}.type`, ""));
    if (condition.status === undefined || condition.status === "") errors.push(fieldRequired(`${path}.status`, ""));
    else if (
      ![CONDITION_APPROVED, CONDITION_DENIED, CONDITION_FAILED].includes(type) &&
      !["True", "False", "Unknown"].includes(condition.status)
    ) {
      errors.push(fieldNotSupported(`${path}.status`, condition.status, ["False", "True", "Unknown"]));
    } else if ([CONDITION_APPROVED, CONDITION_DENIED, CONDITION_FAILED].includes(type) && condition.status !== "True") {
      errors.push(fieldNotSupported(`${path}.status`, condition.status, ["True"]));
    }
    if ([CONDITION_APPROVED, CONDITION_DENIED, CONDITION_FAILED].includes(type)) {
      if (seen.has(type)) errors.push(fieldDuplicate(`${path}.type`, type));
      seen.add(type);
    }
  });
  if (seen.has(CONDITION_APPROVED) && seen.has(CONDITION_DENIED)) {
    errors.push(fieldInvalid("status.conditions", conditions, "Approved and Denied conditions are mutually exclusive"));
  }
  const certificate = csr.status?.certificate;
  if (certificate !== undefined && certificate !== "") {
    const pem = pemOf(certificate) ?? "";
    const blocks = [...pem.matchAll(/-----BEGIN ([A-Z ]+)-----[\s\S]*?-----END \1-----/g)];
    if (blocks.length === 0)
      errors.push(fieldInvalid("status.certificate", "<certificate data>", "must contain at least one CERTIFICATE PEM block"));
    for (const block of blocks) {
      if (block[1] !== "CERTIFICATE") {
        errors.push(
          fieldInvalid("status.certificate", "<certificate data>", 'only CERTIFICATE PEM blocks are allowed, found "' + block[1] + '"'),
        );
        continue;
      }
      try {
        new x509.X509Certificate(block[0]);
      } catch {
        errors.push(fieldInvalid("status.certificate", "<certificate data>", "failed to parse CERTIFICATE PEM block"));
      }
    }
  }
  return errors;
}

/** upstream `ValidateCertificateSigningRequestUpdate`: status rules, and an issued certificate stays. */
export function validateCertificateSigningRequestUpdate(csr: CertificateSigningRequest, old: CertificateSigningRequest): FieldError[] {
  const errors = validateStatus(csr);
  const before = old.status?.certificate ?? "";
  if (before !== "" && (csr.status?.certificate ?? "") !== before) {
    errors.push(fieldForbidden("status.certificate", "updates may not modify existing certificate content"));
  }
  return errors;
}
