/** Label and field selectors shared by the registry and the server. */
export {
  EVERYTHING_LABELS,
  formatLabelSelector,
  parseLabelSelector,
  type LabelOperator,
  type LabelRequirement,
  type LabelSelector,
} from "./labels.js";
export { labelSelectorAsSelector, validateLabelSelector, type LabelSelectorObject } from "@kubekit/apimachinery";
export { EVERYTHING_FIELDS, parseFieldSelector, type FieldRequirement, type FieldSelector } from "./fields.js";
