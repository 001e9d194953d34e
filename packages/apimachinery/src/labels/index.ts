// Label selectors (k8s.io/apimachinery/pkg/labels and meta/v1's LabelSelector).
export {
  EVERYTHING_LABELS,
  formatLabelSelector,
  LabelSelectorParseError,
  parseLabelSelector,
  selectorFrom,
  type LabelOperator,
  type LabelRequirement,
  type LabelSelector,
} from "./selector.js";
export { labelSelectorAsSelector, LabelSelectorOperatorError, validateLabelSelector, type LabelSelectorObject } from "./label-selector.js";
