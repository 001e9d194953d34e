import { formatLabelSelector, labelSelectorAsSelector, type LabelSelectorObject } from "@kubekit/apimachinery";

/** Label selectors: one implementation (validation, conversion, matching), in @kubekit/apimachinery. */
export { validateLabelSelector } from "@kubekit/apimachinery";

/** A `metav1.LabelSelector`. */
export type LabelSelector = LabelSelectorObject;

/**
 * Whether `labels` satisfy `selector` (LabelSelectorAsSelector). An empty selector matches
 * everything; a missing one, or one upstream cannot convert, nothing, as controllers treat them.
 */
export function selectorMatches(selector: LabelSelector | undefined, labels: Record<string, string> | undefined): boolean {
  if (selector === undefined) return false;
  try {
    return labelSelectorAsSelector(selector).matches(labels);
  } catch {
    return false;
  }
}

export function isEmptySelector(selector: LabelSelector | undefined): boolean {
  return Object.keys(selector?.matchLabels ?? {}).length === 0 && (selector?.matchExpressions ?? []).length === 0;
}

/** The selector as a `labelSelector` query string (`LabelSelectorAsSelector(...).String()`). */
export function selectorString(selector: LabelSelector): string {
  return formatLabelSelector(labelSelectorAsSelector(selector));
}
