/**
 * `@kubekit/generic-controlplane/registry`: what registering your own resource type takes — its
 * definition and strategy, the field-error constructors and name rules validation uses, admission
 * plugins, and the generic REST store (k8s.io/apiserver's `registry.Store`) for using one directly.
 */
export type { PrinterColumn, ResourceDefinition, ResourceStrategy, StoredAs, VersionConverter } from "./rest/resource-definition.js";
export type { JSONSchemaProps } from "../schema/types.js";
export type { AdmissionAttributes, AdmissionPlugin } from "../admission/types.js";
export type {
  DeleteResult,
  ListPages,
  ListRequest,
  RequestOptions,
  ResourceStore,
  ResourceWatch,
  WatchFlowControl,
  WatchRequest,
} from "./types.js";
export { createResourceStore, type ResourceStoreOptions } from "./store.js";
export { humanDuration, toTable, translateTimestampSince, type TableOptions } from "./table.js";
export { namespaceLifecycle } from "../admission/plugin/namespace-lifecycle.js";
export {
  formatQuantity,
  parseMilli,
  QUANTITY_FORMAT_MESSAGE,
  quantityFormatOf,
  quantityText,
  type QuantityFormat,
} from "../api/quantity.js";
// ResourceQuota's extension point: evaluators of what objects of a resource use.
export { objectCountName, type QuotaEvaluator, type QuotaScopeRequirement } from "../quota/evaluator.js";
export { addUsage, countOf, usageOf, type QuotaAmount, type QuotaUsage } from "../quota/resource-list.js";
// Go's strconv.ParseInt(s, 10, 64), for int64s kept in strings (annotations such as a Deployment's revision).
export { int64Literal } from "../api/exact-json.js";
export {
  childPath,
  fieldDuplicate,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTooLong,
  fieldTooMany,
  indexPath,
  isConfigMapKey,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  keyPath,
  validateImmutableField,
  validateLabels,
  type FieldError,
  type NameRule,
} from "../validation/index.js";
