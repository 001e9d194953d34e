import type { AdmissionAttributes } from "../../types.js";
import { callHook, type CallContext } from "./call.js";
import { webhookDenied } from "../../../api/errors/index.js";
import { ErrCallingWebhook, failingClosed } from "./errors.js";
import { shouldCallHook, type MatchingContext } from "./matching.js";
import type { Webhook } from "./types.js";

/**
 * Upstream's validating dispatcher: every matching webhook is called at once; a webhook that
 * cannot be called is ignored under failurePolicy Ignore and fails the request (500) under Fail;
 * a denial fails it with the webhook's Status. Of several failures the first webhook's, in
 * configuration order, is answered.
 */
export async function dispatchValidating(
  webhooks: readonly Webhook[],
  attributes: AdmissionAttributes,
  context: MatchingContext & CallContext,
): Promise<void> {
  const outcomes = await Promise.all(
    webhooks.map(async (webhook): Promise<Error | undefined> => {
      try {
        const invocation = await shouldCallHook(webhook, attributes, context);
        if (invocation === undefined) return undefined;
        const result = await callHook(webhook, invocation, attributes, false, context);
        if (result === undefined || result.allowed) return undefined;
        return webhookDenied(webhook.name, result.result);
      } catch (error) {
        if (error instanceof ErrCallingWebhook) return webhook.failurePolicy === "Ignore" ? undefined : failingClosed(error);
        return error instanceof Error ? error : new Error(String(error));
      }
    }),
  );
  const failure = outcomes.find((outcome) => outcome !== undefined);
  if (failure !== undefined) throw failure;
}
