import { internalError, webhookDenied } from "../../../api/errors/index.js";
import type { KubeObject } from "../../../api/types.js";
import { sameJson } from "../../../registry/rest/object-utils.js";
import { applyJsonPatch } from "../../../patch/json-patch.js";
import { currentAdmissionRequestContext } from "../../request-context.js";
import type { AdmissionAttributes } from "../../types.js";
import { callHook, type CallContext } from "./call.js";
import { ErrCallingWebhook, failingClosed } from "./errors.js";
import { shouldCallHook, type MatchingContext } from "./matching.js";
import type { Webhook } from "./types.js";

type Outcome = "skipped" | "unchanged" | "changed";

export interface ConfiguredWebhook {
  webhook: Webhook;
  /** The configuration it came from, for audit annotations. */
  configuration: string;
}

/**
 * Calls one mutating webhook and applies its JSON patch to `attributes.object` (in the form the
 * webhook was sent, carried back to the request's form). Says whether it was called and changed the object.
 */
async function callMutating(
  entry: ConfiguredWebhook,
  attributes: AdmissionAttributes,
  context: MatchingContext & CallContext,
  round: number,
  index: number,
): Promise<Outcome> {
  const { webhook } = entry;
  const invocation = await shouldCallHook(webhook, attributes, context);
  if (invocation === undefined) return "skipped";
  const result = await callHook(webhook, invocation, attributes, true, context);
  if (result === undefined) return "skipped";
  if (!result.allowed) throw webhookDenied(webhook.name, result.result);
  const patch = result.patch ?? [];
  let changed = false;
  if (patch.length > 0) {
    if (invocation.object === undefined) {
      throw internalError(
        new Error(
          `admission webhook ${JSON.stringify(webhook.name)} attempted to modify the object, which is not supported for this operation`,
        ),
      );
    }
    let patched: KubeObject;
    try {
      patched = applyJsonPatch<KubeObject>(invocation.object, patch);
    } catch (error) {
      throw internalError(error);
    }
    const back =
      invocation.definition === attributes.definition
        ? patched
        : await context.equivalents.convert(patched, invocation.definition, attributes.definition);
    changed = !sameJson(back, attributes.object);
    attributes.object = back;
  }
  currentAdmissionRequestContext()?.addAuditAnnotation(
    `mutation.webhook.admission.k8s.io/round_${round}_index_${index}`,
    JSON.stringify({ configuration: entry.configuration, webhook: webhook.name, mutated: changed }),
  );
  return changed ? "changed" : "unchanged";
}

/**
 * Upstream's mutating dispatcher and reinvocation: webhooks run one after another, each seeing
 * the object the previous ones left. If a webhook changed the object, the webhooks with
 * `reinvocationPolicy: IfNeeded` that ran before that change are called once more (round 1).
 * Call failures follow failurePolicy; a denial or a failing-closed call ends the request.
 */
export async function dispatchMutating(
  webhooks: readonly ConfiguredWebhook[],
  attributes: AdmissionAttributes,
  context: MatchingContext & CallContext,
): Promise<void> {
  // failurePolicy Ignore: a webhook that cannot be called leaves the object as it was.
  const call = async (entry: ConfiguredWebhook, round: number, index: number): Promise<Outcome> => {
    try {
      return await callMutating(entry, attributes, context, round, index);
    } catch (error) {
      if (!(error instanceof ErrCallingWebhook)) throw error;
      if (entry.webhook.failurePolicy !== "Ignore") throw failingClosed(error);
      return "unchanged";
    }
  };
  const invokedReinvocable = new Set<ConfiguredWebhook>();
  const toReinvoke = new Set<ConfiguredWebhook>();
  for (const [index, entry] of webhooks.entries()) {
    const outcome = await call(entry, 0, index);
    if (outcome === "changed") for (const earlier of invokedReinvocable) toReinvoke.add(earlier);
    if (outcome !== "skipped" && entry.webhook.reinvocationPolicy === "IfNeeded") invokedReinvocable.add(entry);
  }
  // Only webhooks that ran before a later change are called again, each once.
  const again = webhooks.filter((entry) => toReinvoke.has(entry));
  for (const [index, entry] of again.entries()) await call(entry, 1, index);
}
