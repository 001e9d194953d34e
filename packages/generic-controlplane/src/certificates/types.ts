import type { KubeObject } from "../api/types.js";

export const CERTIFICATES_GROUP = "certificates.k8s.io";

/** The signer whose certificates the API server accepts as client certificates. */
export const KUBE_APISERVER_CLIENT_SIGNER = "kubernetes.io/kube-apiserver-client";
/** certificates.k8s.io/v1beta1's default signer, refused by v1 as upstream. */
export const LEGACY_UNKNOWN_SIGNER = "kubernetes.io/legacy-unknown";

export const CONDITION_APPROVED = "Approved";
export const CONDITION_DENIED = "Denied";
export const CONDITION_FAILED = "Failed";

export interface CertificateSigningRequestCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

export interface CertificateSigningRequest extends KubeObject {
  spec?: {
    /** Base64 of the PEM `CERTIFICATE REQUEST`. */
    request?: string;
    signerName?: string;
    expirationSeconds?: number;
    usages?: string[];
    username?: string;
    uid?: string;
    groups?: string[];
    extra?: Record<string, string[]>;
  };
  status?: {
    conditions?: CertificateSigningRequestCondition[];
    /** Base64 of the issued PEM certificate(s). */
    certificate?: string;
  };
}

/** Whether the CSR carries a condition of `type` (upstream `GetCertApprovalCondition` and friends). */
export function hasCondition(csr: CertificateSigningRequest, type: string): boolean {
  return (csr.status?.conditions ?? []).some((c) => c.type === type);
}
