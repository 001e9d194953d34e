import type { ResourceDefinition } from "../../registry/resource-definition.js";
import type { ResourceStore } from "../../registry/types.js";
import type { StoreCache } from "../store-cache.js";
import type { ServiceResolver } from "../../webhook/client-config.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../types.js";
import type { CallContext } from "./call.js";
import { storageEquivalents } from "./equivalents.js";
import type { MatchConditionEvaluator } from "./match-conditions.js";
import type { MatchingContext } from "./matching.js";
import { dispatchMutating, type ConfiguredWebhook } from "./mutating.js";
import { isExemptAdmissionConfigurationResource } from "./rules.js";
import type { WebhookConfiguration } from "./types.js";
import { dispatchValidating } from "./validating.js";

export interface WebhookAdmissionOptions {
  /** The configurations, read from caches whose stores are served `writingThrough` them. */
  mutatingConfigurations: StoreCache | undefined;
  validatingConfigurations: StoreCache | undefined;
  /** For namespaceSelector. */
  namespaces: ResourceStore | undefined;
  /** The resources served now, for matchPolicy Equivalent. */
  served: () => readonly ResourceDefinition[];
  /** Resolves `clientConfig.service`; default `https://<name>.<namespace>.svc:<port>`. */
  serviceResolver?: ServiceResolver | undefined;
  /** The CEL environment of matchConditions; without one a webhook with matchConditions fails per its failurePolicy. */
  matchConditions?: MatchConditionEvaluator | undefined;
}

/** Every webhook of every configuration, configurations by name (upstream sorts them so), webhooks in order. */
async function configuredWebhooks(cache: StoreCache | undefined): Promise<ConfiguredWebhook[]> {
  if (cache === undefined) return [];
  const configurations = ((await cache.all()) as WebhookConfiguration[]).sort((a, b) => ((a.metadata?.name ?? "") < (b.metadata?.name ?? "") ? -1 : 1));
  return configurations.flatMap((configuration) => (configuration.webhooks ?? []).map((webhook) => ({ webhook, configuration: configuration.metadata?.name ?? "" })));
}

/**
 * The MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins: the configurations are read
 * from watch-fed caches (no storage read per request), and their stores are served writing
 * through the caches, so a configuration applies from the request after its write returned.
 */
export function webhookAdmission(options: WebhookAdmissionOptions): { mutating: AdmissionPlugin; validating: AdmissionPlugin } {
  const context: MatchingContext & CallContext = {
    namespaces: options.namespaces,
    equivalents: storageEquivalents(options.served),
    resolver: options.serviceResolver,
    matchConditions: options.matchConditions,
  };
  const applies = (attributes: AdmissionAttributes) => !isExemptAdmissionConfigurationResource(attributes);
  return {
    mutating: {
      name: "MutatingAdmissionWebhook",
      async admit(attributes) {
        if (!applies(attributes)) return;
        const webhooks = await configuredWebhooks(options.mutatingConfigurations);
        if (webhooks.length > 0) await dispatchMutating(webhooks, attributes, context);
      },
    },
    validating: {
      name: "ValidatingAdmissionWebhook",
      async validate(attributes) {
        if (!applies(attributes)) return;
        const webhooks = await configuredWebhooks(options.validatingConfigurations);
        if (webhooks.length > 0) await dispatchValidating(webhooks.map((entry) => entry.webhook), attributes, context);
      },
    },
  };
}
