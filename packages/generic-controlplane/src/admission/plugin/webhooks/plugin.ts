import type { ResourceDefinition } from "../../../registry/rest/resource-definition.js";
import type { ResourceStore } from "../../../registry/types.js";
import type { StoreCache } from "../store-cache.js";
import type { ServiceResolver } from "../../../webhook/client-config.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../../types.js";
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
  const configurations = ((await cache.all()) as WebhookConfiguration[]).sort((a, b) =>
    (a.metadata?.name ?? "") < (b.metadata?.name ?? "") ? -1 : 1,
  );
  return configurations.flatMap((configuration) =>
    (configuration.webhooks ?? []).map((webhook) => ({ webhook, configuration: configuration.metadata?.name ?? "" })),
  );
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
  // With no configuration (which the cache can tell at once), a request gets no promise to wait for.
  const applies = (attributes: AdmissionAttributes, cache: StoreCache | undefined): cache is StoreCache => {
    if (cache === undefined || isExemptAdmissionConfigurationResource(attributes)) return false;
    const configurations = cache.peekAll();
    return configurations === undefined || configurations.length > 0;
  };
  return {
    mutating: {
      name: "MutatingAdmissionWebhook",
      admit(attributes) {
        if (!applies(attributes, options.mutatingConfigurations)) return;
        return configuredWebhooks(options.mutatingConfigurations).then((webhooks) =>
          webhooks.length > 0 ? dispatchMutating(webhooks, attributes, context) : undefined,
        );
      },
    },
    validating: {
      name: "ValidatingAdmissionWebhook",
      validate(attributes) {
        if (!applies(attributes, options.validatingConfigurations)) return;
        return configuredWebhooks(options.validatingConfigurations).then((webhooks) =>
          webhooks.length > 0
            ? dispatchValidating(
                webhooks.map((entry) => entry.webhook),
                attributes,
                context,
              )
            : undefined,
        );
      },
    },
  };
}
