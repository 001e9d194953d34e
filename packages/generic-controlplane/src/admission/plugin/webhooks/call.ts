import { dryRunUnsupported, forbidden } from "../../../api/errors/index.js";
import { callWebhook, WebhookCallError } from "../../../webhook/client.js";
import type { ServiceResolver } from "../../../webhook/client-config.js";
import { currentAdmissionRequestContext } from "../../request-context.js";
import type { AdmissionAttributes } from "../../types.js";
import { admissionReview, verifyAdmissionResponse, type AdmissionResult, type Invocation } from "./admission-review.js";
import { ErrCallingWebhook } from "./errors.js";
import { matchConditions, type MatchConditionEvaluator } from "./match-conditions.js";
import type { Webhook } from "./types.js";

export interface CallContext {
  resolver: ServiceResolver | undefined;
  matchConditions: MatchConditionEvaluator | undefined;
}

/** v1 defaults timeoutSeconds to 10; an object stored without it still gets that bound. */
const DEFAULT_TIMEOUT_SECONDS = 10;

/**
 * One webhook call as upstream's dispatchers make it: dry-run requests only reach webhooks
 * without side effects, matchConditions decide whether it is called at all (undefined: skipped),
 * then the AdmissionReview goes out and the answer is verified. Call and answer failures are
 * ErrCallingWebhook; the caller applies failurePolicy. Warnings and audit annotations of the
 * answer are recorded on the request.
 */
export async function callHook(
  webhook: Webhook,
  invocation: Invocation,
  attributes: AdmissionAttributes,
  mutating: boolean,
  context: CallContext,
): Promise<AdmissionResult | undefined> {
  if (attributes.dryRun && webhook.sideEffects !== "None" && webhook.sideEffects !== "NoneOnDryRun") throw dryRunUnsupported(webhook.name);
  const request = currentAdmissionRequestContext();
  const review = admissionReview(attributes, invocation, request?.user);
  const conditions = webhook.matchConditions ?? [];
  if (conditions.length > 0) {
    const match = matchConditions(conditions, context.matchConditions, {
      object: review.request.object,
      oldObject: review.request.oldObject,
      request: review.request,
    });
    if ("error" in match) {
      // Upstream fails closed with a 403 here, unless failurePolicy is Ignore.
      if (webhook.failurePolicy === "Ignore") return undefined;
      throw forbidden({ group: attributes.definition.group, resource: attributes.definition.plural }, attributes.name, match.error);
    }
    if (!match.matches) return undefined;
  }
  let answer: unknown;
  try {
    answer = await callWebhook(webhook.clientConfig, review, {
      timeoutMs: (webhook.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
      ...(context.resolver ? { resolver: context.resolver } : {}),
    });
  } catch (error) {
    if (error instanceof WebhookCallError)
      throw new ErrCallingWebhook(webhook.name, `failed to call webhook: ${error.message}`, { cause: error });
    throw error;
  }
  let result: AdmissionResult;
  try {
    result = verifyAdmissionResponse(review.request.uid, mutating, answer);
  } catch (error) {
    throw new ErrCallingWebhook(
      webhook.name,
      `received invalid webhook response: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  for (const [key, value] of Object.entries(result.auditAnnotations)) request?.addAuditAnnotation(`${webhook.name}/${key}`, value);
  for (const warning of result.warnings) request?.addWarning(warning);
  return result;
}
