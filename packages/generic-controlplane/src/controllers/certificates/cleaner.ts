import type { KubeObject } from "../../api/types.js";
import { x509 } from "../../certs/x509.js";
import { CONDITION_APPROVED, CONDITION_DENIED, CONDITION_FAILED, type CertificateSigningRequest } from "../../certificates/types.js";
import { pemOf } from "../../certificates/validation.js";
import { isConflict, isNotFound } from "../client.js";
import { controllerFor } from "../builder.js";
import type { Controller } from "../runtime.js";
import { CERTIFICATE_SIGNING_REQUESTS } from "./refs.js";

const HOUR_MS = 3_600_000;
/** upstream csrcleaner's lifetimes. */
const PENDING_MS = 24 * HOUR_MS;
const DECIDED_MS = HOUR_MS;

/** When the CSR is to go (upstream `isIssuedPastDeadline`, `isApprovedPastDeadline`, ...), in ms since the epoch. */
export function csrDeadline(csr: CertificateSigningRequest): number {
  const decided = (csr.status?.conditions ?? []).find(
    (c) => c.type === CONDITION_APPROVED || c.type === CONDITION_DENIED || c.type === CONDITION_FAILED,
  );
  let deadline =
    decided === undefined
      ? Date.parse(csr.metadata?.creationTimestamp ?? "") + PENDING_MS
      : Date.parse(decided.lastUpdateTime ?? "") + DECIDED_MS;
  const certificate = pemOf(csr.status?.certificate ?? "");
  if (certificate !== undefined && certificate !== "") {
    try {
      deadline = Math.min(deadline, new x509.X509Certificate(certificate).notAfter.getTime());
    } catch {
      // An unreadable certificate goes by the condition's deadline.
    }
  }
  return Number.isFinite(deadline) ? deadline : Date.now();
}

/**
 * Deletes CSRs that are done with (upstream `pkg/controller/certificates/cleaner`): approved,
 * denied or failed ones an hour after the decision, pending ones after 24 hours, and any whose
 * issued certificate has expired.
 */
export function csrCleanerController(options: { workers?: number } = {}): Controller {
  return controllerFor(CERTIFICATE_SIGNING_REQUESTS, {
    handlers: ({ queue }) => {
      const schedule = (csr: KubeObject) => queue.addAfter(csr.metadata?.name ?? "", csrDeadline(csr) - Date.now());
      return { add: schedule, update: (_old, csr) => schedule(csr) };
    },
  })
    .named("csrcleaner")
    .withOptions({ workers: options.workers ?? 1 })
    .complete(async (name, { primary, client }) => {
      const csr = primary.cache.get(name) as CertificateSigningRequest | undefined;
      if (csr === undefined) return;
      const remaining = csrDeadline(csr) - Date.now();
      if (remaining > 0) return { requeueAfterMs: remaining };
      try {
        await client.delete(CERTIFICATE_SIGNING_REQUESTS, undefined, name, {
          preconditions: { resourceVersion: csr.metadata?.resourceVersion ?? "" },
        });
      } catch (error) {
        if (isNotFound(error) || isConflict(error)) return;
        throw error;
      }
    });
}
