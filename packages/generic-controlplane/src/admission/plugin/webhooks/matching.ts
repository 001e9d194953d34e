import { notFound } from "../../../api/errors/index.js";
import type { KubeObject } from "../../../api/types.js";
import { isControlPlaneError } from "../../../api/errors/control-plane-error.js";
import type { ResourceStore } from "../../../registry/types.js";
import { labelSelectorAsSelector } from "../../../selectors/index.js";
import type { AdmissionAttributes } from "../../types.js";
import type { Invocation } from "./admission-review.js";
import type { EquivalentResources } from "./equivalents.js";
import { ErrCallingWebhook } from "./errors.js";
import { ruleMatches } from "./rules.js";
import type { Webhook } from "./types.js";

export interface MatchingContext {
  /** The namespaces store, for namespaceSelector; without one, namespace selectors match everything. */
  namespaces: ResourceStore | undefined;
  equivalents: EquivalentResources;
}

const labelsOf = (object: KubeObject | undefined) => object?.metadata?.labels;

/**
 * Upstream `namespace.Matcher.MatchNamespaceSelector`: cluster-scoped requests (other than for
 * namespaces) always match; a namespace's own create or update is judged by its new labels; a
 * missing namespace is a 404.
 */
async function matchesNamespaceSelector(webhook: Webhook, attributes: AdmissionAttributes, context: MatchingContext): Promise<boolean> {
  const { group, plural } = attributes.definition;
  const isNamespace = group === "" && plural === "namespaces";
  const namespace = isNamespace ? attributes.name : attributes.namespace;
  if ((namespace === undefined || namespace === "") && !isNamespace) return true;
  const selector = labelSelectorAsSelector(webhook.namespaceSelector);
  if (selector.empty) return true;
  if (isNamespace && attributes.subresource === "" && (attributes.operation === "CREATE" || attributes.operation === "UPDATE")) {
    return selector.matches(labelsOf(attributes.object));
  }
  if (context.namespaces === undefined) return true;
  let found: KubeObject;
  try {
    found = await context.namespaces.get(undefined, namespace ?? "");
  } catch (error) {
    if (isControlPlaneError(error) && error.code === "NotFound") throw notFound({ group: "", resource: "namespaces" }, namespace ?? "");
    throw error;
  }
  return selector.matches(labelsOf(found));
}

/** Upstream `object.Matcher.MatchObjectSelector`: the new or the old object's labels match. */
function matchesObjectSelector(webhook: Webhook, attributes: AdmissionAttributes): boolean {
  const selector = labelSelectorAsSelector(webhook.objectSelector);
  if (selector.empty) return true;
  const matches = (object: KubeObject | undefined) => object !== undefined && selector.matches(labelsOf(object));
  return matches(attributes.object) || matches(attributes.oldObject);
}

/**
 * Upstream `ShouldCallHook`: selectors first, then the rules against the request's own resource,
 * then (matchPolicy Equivalent) against each equivalent resource, in rule order. Returns what the
 * webhook is sent, or undefined when it does not apply.
 */
export async function shouldCallHook(
  webhook: Webhook,
  attributes: AdmissionAttributes,
  context: MatchingContext,
): Promise<Invocation | undefined> {
  if (!(await matchesNamespaceSelector(webhook, attributes, context))) return undefined;
  if (!matchesObjectSelector(webhook, attributes)) return undefined;
  const rules = webhook.rules ?? [];
  if (rules.some((rule) => ruleMatches(rule, attributes))) {
    return { definition: attributes.definition, object: attributes.object, oldObject: attributes.oldObject };
  }
  if ((webhook.matchPolicy ?? "Equivalent") !== "Equivalent") return undefined;
  const equivalents = context.equivalents.equivalentsOf(attributes.definition);
  for (const rule of rules) {
    for (const equivalent of equivalents) {
      if (!ruleMatches(rule, attributes, equivalent)) continue;
      try {
        const convert = async (object: KubeObject | undefined) =>
          object === undefined ? undefined : await context.equivalents.convert(object, attributes.definition, equivalent);
        return { definition: equivalent, object: await convert(attributes.object), oldObject: await convert(attributes.oldObject) };
      } catch (error) {
        throw new ErrCallingWebhook(
          webhook.name,
          `unable to convert to ${equivalent.group}/${equivalent.version}, Resource=${equivalent.plural}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
  }
  return undefined;
}
