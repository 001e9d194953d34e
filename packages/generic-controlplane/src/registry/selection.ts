import type { KubeObject } from "../api/types.js";
import { parseFieldSelector } from "../selectors/fields.js";
import { parseLabelSelector } from "../selectors/labels.js";
import type { ResourceDefinition } from "./rest/resource-definition.js";

/** The field labels a type can be selected by: `metadata.name`, `metadata.namespace` and its own. */
export function supportedFieldLabels(definition: Pick<ResourceDefinition, "fieldSelectors">): string[] {
  return ["metadata.name", "metadata.namespace", ...Object.keys(definition.fieldSelectors ?? {})];
}

/** The field-label values of an object, as field selectors see them. */
export function fieldValuesOf(
  definition: Pick<ResourceDefinition, "fieldSelectors">,
  object: KubeObject,
): Record<string, string | undefined> {
  const values: Record<string, string | undefined> = {
    "metadata.name": object.metadata?.name ?? "",
    "metadata.namespace": object.metadata?.namespace ?? "",
  };
  for (const [label, read] of Object.entries(definition.fieldSelectors ?? {})) values[label] = read(object);
  return values;
}

export interface Matcher {
  /** True when every object matches (no selectors). */
  readonly everything: boolean;
  matches(object: KubeObject): boolean;
  /** The value a field label must equal (`metadata.name=x`), if the field selector pins one. */
  requiredValue(field: string): string | undefined;
}

/** Parses both selectors (400 on errors) into one predicate. */
export function buildMatcher(
  definition: Pick<ResourceDefinition, "fieldSelectors">,
  labelSelector: string | undefined,
  fieldSelector: string | undefined,
): Matcher {
  const labels = parseLabelSelector(labelSelector);
  const fields = parseFieldSelector(fieldSelector, supportedFieldLabels(definition));
  const requiredValue = (field: string) => fields.requiredValue(field);
  if (labels.empty && fields.empty) return { everything: true, matches: () => true, requiredValue };
  return {
    everything: false,
    requiredValue,
    matches: (object) => labels.matches(object.metadata?.labels) && (fields.empty || fields.matches(fieldValuesOf(definition, object))),
  };
}
