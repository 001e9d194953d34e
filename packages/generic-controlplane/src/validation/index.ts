/** Validators shared by the registry and the resource definitions. */
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
} from "@kubekit/apimachinery";
export { FIELD_IMMUTABLE_ERROR_MSG, IS_NEGATIVE_ERROR_MSG, emptyError, maxLenError, regexError } from "@kubekit/apimachinery";
export * from "./field-errors.js";
export {
  FINALIZER_DELETE_DEPENDENTS,
  FINALIZER_ORPHAN_DEPENDENTS,
  TOTAL_ANNOTATION_SIZE_LIMIT_BYTES,
  validateAnnotations,
  validateFinalizerName,
  validateFinalizers,
  validateImmutableField,
  validateLabels,
  validateNoNewFinalizers,
  validateObjectMeta,
  validateObjectMetaUpdate,
  validateOwnerReferences,
  type ObjectMetaValidationOptions,
} from "./object-meta.js";
export { checkFieldTypes, fieldTypeError, type FieldTypeOptions, type NumberLiteral } from "./field-types.js";
export { decodeError, type DecodeTarget } from "./decode-errors.js";
