import { signCertificateRequest, type CertificateAndKey } from "../../certs/authority.js";
import { x509 } from "../../certs/x509.js";
import {
  CONDITION_APPROVED,
  CONDITION_FAILED,
  KUBE_APISERVER_CLIENT_SIGNER,
  hasCondition,
  type CertificateSigningRequest,
} from "../../certificates/types.js";
import { pemOf } from "../../certificates/validation.js";
import { isConflict, isNotFound } from "../client.js";
import { controllerFor } from "../builder.js";
import type { Controller } from "../runtime.js";
import { CERTIFICATE_SIGNING_REQUESTS } from "./refs.js";

const CLIENT_AUTH = "client auth";
/** upstream `kube-apiserver-client`'s allowed usages. */
const CLIENT_USAGES: Record<string, number> = {
  "digital signature": x509.KeyUsageFlags.digitalSignature,
  "key encipherment": x509.KeyUsageFlags.keyEncipherment,
  [CLIENT_AUTH]: 0,
};
const EXT_KEY_USAGE_CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
/** kube-controller-manager's `--cluster-signing-duration` default. */
const DEFAULT_SIGNING_DURATION_MS = 365 * 24 * 3_600_000;
const MIN_DURATION_MS = 600_000;

export interface CSRSigningControllerOptions {
  /** The CA that signs `kubernetes.io/kube-apiserver-client` requests: the API server's client CA (`--cluster-signing-kube-apiserver-client-{cert,key}-file`). */
  kubeAPIServerClient: CertificateAndKey;
  /** Longest lifetime of an issued certificate (default 1 year, `--cluster-signing-duration`). */
  signingDurationMs?: number;
  workers?: number;
}

/** Why the request's usages are not a client certificate's (upstream `validAPIServerClientUsages`). */
function usageProblem(usages: readonly string[]): string | undefined {
  if (!usages.includes(CLIENT_AUTH)) return `missing required usages: [${CLIENT_AUTH}]`;
  const invalid = usages.filter((usage) => !Object.hasOwn(CLIENT_USAGES, usage));
  return invalid.length > 0 ? `invalid usages: [${invalid.join(" ")}]` : undefined;
}

/** upstream `duration`: expirationSeconds, at least 10 minutes, at most the signing duration. */
function validityMs(csr: CertificateSigningRequest, limit: number): number {
  const requested = csr.spec?.expirationSeconds;
  if (requested === undefined) return limit;
  return Math.min(limit, Math.max(MIN_DURATION_MS, requested * 1000));
}

/**
 * Issues certificates for approved `kubernetes.io/kube-apiserver-client` requests with the client
 * CA, so the API server accepts them (upstream `pkg/controller/certificates/signer`); a request
 * whose usages are not a client certificate's gets a Failed condition instead.
 */
export function csrSigningController(options: CSRSigningControllerOptions): Controller {
  const limit = options.signingDurationMs ?? DEFAULT_SIGNING_DURATION_MS;
  return controllerFor(CERTIFICATE_SIGNING_REQUESTS, { on: ["add", "update"] })
    .named("csrsigning")
    .withOptions({ workers: options.workers ?? 1 })
    .complete(async (name, { primary, client }) => {
      const csr = primary.cache.get(name) as CertificateSigningRequest | undefined;
      if (csr === undefined || csr.spec?.signerName !== KUBE_APISERVER_CLIENT_SIGNER) return;
      if (!hasCondition(csr, CONDITION_APPROVED) || hasCondition(csr, CONDITION_FAILED) || (csr.status?.certificate ?? "") !== "") return;
      const updated: CertificateSigningRequest = structuredClone(csr);
      const problem = usageProblem(csr.spec.usages ?? []);
      if (problem !== undefined) {
        const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
        const failed = {
          type: CONDITION_FAILED,
          status: "True",
          reason: "SignerValidationFailure",
          message: problem,
          lastUpdateTime: now,
          lastTransitionTime: now,
        };
        updated.status = { ...updated.status, conditions: [...(updated.status?.conditions ?? []), failed] };
      } else {
        const keyUsages = (csr.spec.usages ?? []).reduce((bits, usage) => bits | (CLIENT_USAGES[usage] ?? 0), 0);
        const pem = await signCertificateRequest(options.kubeAPIServerClient, pemOf(csr.spec.request) ?? "", {
          keyUsages,
          extendedKeyUsages: [EXT_KEY_USAGE_CLIENT_AUTH],
          validityMs: validityMs(csr, limit),
        });
        updated.status = { ...updated.status, certificate: Buffer.from(pem).toString("base64") };
      }
      try {
        await client.update(CERTIFICATE_SIGNING_REQUESTS, undefined, updated, "status");
      } catch (error) {
        // Deleted, or changed since: the change brings it back to the queue.
        if (isNotFound(error) || isConflict(error)) return;
        throw error;
      }
    });
}
