import { LabelSelectorParseError, parseLabelSelector as parseSelector, type LabelSelector } from "@kubekit/apimachinery";
import { badRequest } from "../api/errors/index.js";

/** Label selectors: `labels.Parse` and its matching live in @kubekit/apimachinery. */
export {
  EVERYTHING_LABELS,
  formatLabelSelector,
  type LabelOperator,
  type LabelRequirement,
  type LabelSelector,
} from "@kubekit/apimachinery";

/**
 * Parses a `labelSelector` query parameter. Throws a 400 BadRequest ControlPlaneError with the
 * upstream message (e.g. `unable to parse requirement: found '', expected: in, notin, =, ==, !=, gt, lt`).
 */
export function parseLabelSelector(selector: string | undefined): LabelSelector {
  try {
    return parseSelector(selector);
  } catch (cause) {
    if (cause instanceof LabelSelectorParseError) throw badRequest(cause.message, { cause });
    throw cause;
  }
}
