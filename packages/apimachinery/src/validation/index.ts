// Value rules and field errors (k8s.io/apimachinery/pkg/util/validation and its field package).
export {
  DNS1123_LABEL_MAX_LENGTH,
  DNS1123_SUBDOMAIN_MAX_LENGTH,
  LABEL_VALUE_MAX_LENGTH,
  QUALIFIED_NAME_MAX_LENGTH,
  isConfigMapKey,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  isValidPathSegmentPrefix,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  nameValidatorFor,
  validateNamespaceName,
  validatePathSegmentName,
  type NameRule,
  type NameValidator,
} from "./names.js";
export { FIELD_IMMUTABLE_ERROR_MSG, IS_NEGATIVE_ERROR_MSG, emptyError, maxLenError, regexError } from "./messages.js";
export {
  childPath,
  fieldDuplicate,
  fieldErrorBody,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTooLong,
  fieldTooMany,
  formatFieldError,
  indexPath,
  keyPath,
  type FieldError,
} from "./field.js";
export { validateLabels } from "./labels.js";
