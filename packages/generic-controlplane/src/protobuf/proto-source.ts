/**
 * The protobuf messages kube-apiserver's `application/vnd.kubernetes.protobuf` encoding uses for
 * the kinds served here, written for this package with the field numbers of upstream's
 * `generated.proto` files (k8s.io/api and k8s.io/apimachinery). Field numbers are the wire
 * contract; names follow the JSON field names so reflection can map one onto the other. Kept as
 * strings (one per proto package) so nothing is read from disk at runtime.
 */

export const META_V1_PROTO = `
syntax = "proto2";
package k8s.io.apimachinery.pkg.apis.meta.v1;

// Map fields are declared as their wire form (repeated key/value entries) so the codec builds
// JSON objects itself; that keeps keys such as "__proto__" ordinary keys.
message StringEntry {
  optional string key = 1;
  optional string value = 2;
}

message BytesEntry {
  optional string key = 1;
  optional bytes value = 2;
}

message Time {
  optional int64 seconds = 1;
  optional int32 nanos = 2;
}

message MicroTime {
  optional int64 seconds = 1;
  optional int32 nanos = 2;
}

message FieldsV1 {
  optional bytes Raw = 1;
}

message OwnerReference {
  optional string kind = 1;
  optional string name = 3;
  optional string uid = 4;
  optional string apiVersion = 5;
  optional bool controller = 6;
  optional bool blockOwnerDeletion = 7;
}

message ManagedFieldsEntry {
  optional string manager = 1;
  optional string operation = 2;
  optional string apiVersion = 3;
  optional Time time = 4;
  optional string fieldsType = 6;
  optional FieldsV1 fieldsV1 = 7;
  optional string subresource = 8;
}

message ObjectMeta {
  optional string name = 1;
  optional string generateName = 2;
  optional string namespace = 3;
  optional string selfLink = 4;
  optional string uid = 5;
  optional string resourceVersion = 6;
  optional int64 generation = 7;
  optional Time creationTimestamp = 8;
  optional Time deletionTimestamp = 9;
  optional int64 deletionGracePeriodSeconds = 10;
  repeated StringEntry labels = 11;
  repeated StringEntry annotations = 12;
  repeated OwnerReference ownerReferences = 13;
  repeated string finalizers = 14;
  repeated ManagedFieldsEntry managedFields = 17;
}

message ListMeta {
  optional string selfLink = 1;
  optional string resourceVersion = 2;
  optional string continue = 3;
  optional int64 remainingItemCount = 4;
}

message LabelSelectorRequirement {
  optional string key = 1;
  optional string operator = 2;
  repeated string values = 3;
}

message LabelSelector {
  repeated StringEntry matchLabels = 1;
  repeated LabelSelectorRequirement matchExpressions = 2;
}

message StatusCause {
  optional string reason = 1;
  optional string message = 2;
  optional string field = 3;
}

message StatusDetails {
  optional string name = 1;
  optional string group = 2;
  optional string kind = 3;
  optional string uid = 6;
  repeated StatusCause causes = 4;
  optional int32 retryAfterSeconds = 5;
}

message Status {
  optional ListMeta metadata = 1;
  optional string status = 2;
  optional string message = 3;
  optional string reason = 4;
  optional StatusDetails details = 5;
  optional int32 code = 6;
}
`;

export const RUNTIME_PROTO = `
syntax = "proto2";
package k8s.io.apimachinery.pkg.runtime;

message TypeMeta {
  optional string apiVersion = 1;
  optional string kind = 2;
}

// The envelope after the "k8s\\0" magic: the type and the encoded object.
message Unknown {
  optional TypeMeta typeMeta = 1;
  optional bytes raw = 2;
  optional string contentEncoding = 3;
  optional string contentType = 4;
}

// An embedded object (a ControllerRevision's data): its JSON bytes, as Go writes them.
message RawExtension {
  optional bytes raw = 1;
}
`;

export const CORE_V1_PROTO = `
syntax = "proto2";
package k8s.io.api.core.v1;

message ObjectReference {
  optional string kind = 1;
  optional string namespace = 2;
  optional string name = 3;
  optional string uid = 4;
  optional string apiVersion = 5;
  optional string resourceVersion = 6;
  optional string fieldPath = 7;
}

message LocalObjectReference {
  optional string name = 1;
}

message EventSource {
  optional string component = 1;
  optional string host = 2;
}

message NamespaceSpec {
  repeated string finalizers = 1;
}

message NamespaceCondition {
  optional string type = 1;
  optional string status = 2;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 4;
  optional string reason = 5;
  optional string message = 6;
}

message NamespaceStatus {
  optional string phase = 1;
  repeated NamespaceCondition conditions = 2;
}

message Namespace {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional NamespaceSpec spec = 2;
  optional NamespaceStatus status = 3;
}

message NamespaceList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Namespace items = 2;
}

message ConfigMap {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated .k8s.io.apimachinery.pkg.apis.meta.v1.StringEntry data = 2;
  repeated .k8s.io.apimachinery.pkg.apis.meta.v1.BytesEntry binaryData = 3;
  optional bool immutable = 4;
}

message ConfigMapList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated ConfigMap items = 2;
}

message Secret {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated .k8s.io.apimachinery.pkg.apis.meta.v1.BytesEntry data = 2;
  optional string type = 3;
  repeated .k8s.io.apimachinery.pkg.apis.meta.v1.StringEntry stringData = 4;
  optional bool immutable = 5;
}

message SecretList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Secret items = 2;
}

// A ResourceList (map[ResourceName]resource.Quantity) entry.
message QuantityEntry {
  optional string key = 1;
  optional .k8s.io.apimachinery.pkg.api.resource.Quantity value = 2;
}

message ScopedResourceSelectorRequirement {
  optional string scopeName = 1;
  optional string operator = 2;
  repeated string values = 3;
}

message ScopeSelector {
  repeated ScopedResourceSelectorRequirement matchExpressions = 1;
}

message ResourceQuotaSpec {
  repeated QuantityEntry hard = 1;
  repeated string scopes = 2;
  optional ScopeSelector scopeSelector = 3;
}

message ResourceQuotaStatus {
  repeated QuantityEntry hard = 1;
  repeated QuantityEntry used = 2;
}

message ResourceQuota {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional ResourceQuotaSpec spec = 2;
  optional ResourceQuotaStatus status = 3;
}

message ResourceQuotaList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated ResourceQuota items = 2;
}

message ServiceAccount {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated ObjectReference secrets = 2;
  repeated LocalObjectReference imagePullSecrets = 3;
  optional bool automountServiceAccountToken = 4;
}

message ServiceAccountList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated ServiceAccount items = 2;
}

message EventSeries {
  optional int32 count = 1;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime lastObservedTime = 2;
}

message Event {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional ObjectReference involvedObject = 2;
  optional string reason = 3;
  optional string message = 4;
  optional EventSource source = 5;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time firstTimestamp = 6;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTimestamp = 7;
  optional int32 count = 8;
  optional string type = 9;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime eventTime = 10;
  optional EventSeries series = 11;
  optional string action = 12;
  optional ObjectReference related = 13;
  optional string reportingComponent = 14;
  optional string reportingInstance = 15;
}

message EventList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Event items = 2;
}
`;

export const COORDINATION_V1_PROTO = `
syntax = "proto2";
package k8s.io.api.coordination.v1;

message LeaseSpec {
  optional string holderIdentity = 1;
  optional int32 leaseDurationSeconds = 2;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime acquireTime = 3;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime renewTime = 4;
  optional int32 leaseTransitions = 5;
  optional string strategy = 6;
  optional string preferredHolder = 7;
}

message Lease {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional LeaseSpec spec = 2;
}

message LeaseList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Lease items = 2;
}
`;

export const EVENTS_V1_PROTO = `
syntax = "proto2";
package k8s.io.api.events.v1;

message EventSeries {
  optional int32 count = 1;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime lastObservedTime = 2;
}

message Event {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime eventTime = 2;
  optional EventSeries series = 3;
  optional string reportingController = 4;
  optional string reportingInstance = 5;
  optional string action = 6;
  optional string reason = 7;
  optional .k8s.io.api.core.v1.ObjectReference regarding = 8;
  optional .k8s.io.api.core.v1.ObjectReference related = 9;
  optional string note = 10;
  optional string type = 11;
  optional .k8s.io.api.core.v1.EventSource deprecatedSource = 12;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time deprecatedFirstTimestamp = 13;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time deprecatedLastTimestamp = 14;
  optional int32 deprecatedCount = 15;
}

message EventList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Event items = 2;
}
`;

export const RBAC_V1_PROTO = `
syntax = "proto2";
package k8s.io.api.rbac.v1;

message PolicyRule {
  repeated string verbs = 1;
  repeated string apiGroups = 2;
  repeated string resources = 3;
  repeated string resourceNames = 4;
  repeated string nonResourceURLs = 5;
}

message Subject {
  optional string kind = 1;
  optional string apiGroup = 2;
  optional string name = 3;
  optional string namespace = 4;
}

message RoleRef {
  optional string apiGroup = 1;
  optional string kind = 2;
  optional string name = 3;
}

message AggregationRule {
  repeated .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector clusterRoleSelectors = 1;
}

message Role {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated PolicyRule rules = 2;
}

message RoleList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Role items = 2;
}

message RoleBinding {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated Subject subjects = 2;
  optional RoleRef roleRef = 3;
}

message RoleBindingList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated RoleBinding items = 2;
}

message ClusterRole {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated PolicyRule rules = 2;
  optional AggregationRule aggregationRule = 3;
}

message ClusterRoleList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated ClusterRole items = 2;
}

message ClusterRoleBinding {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  repeated Subject subjects = 2;
  optional RoleRef roleRef = 3;
}

message ClusterRoleBindingList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated ClusterRoleBinding items = 2;
}
`;

export const AUTHORIZATION_V1_PROTO = `
syntax = "proto2";
package k8s.io.api.authorization.v1;

message FieldSelectorRequirement {
  optional string key = 1;
  optional string operator = 2;
  repeated string values = 3;
}

message FieldSelectorAttributes {
  optional string rawSelector = 1;
  repeated FieldSelectorRequirement requirements = 2;
}

message LabelSelectorAttributes {
  optional string rawSelector = 1;
  repeated .k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement requirements = 2;
}

message ResourceAttributes {
  optional string namespace = 1;
  optional string verb = 2;
  optional string group = 3;
  optional string version = 4;
  optional string resource = 5;
  optional string subresource = 6;
  optional string name = 7;
  optional FieldSelectorAttributes fieldSelector = 8;
  optional LabelSelectorAttributes labelSelector = 9;
}

message NonResourceAttributes {
  optional string path = 1;
  optional string verb = 2;
}

message SelfSubjectAccessReviewSpec {
  optional ResourceAttributes resourceAttributes = 1;
  optional NonResourceAttributes nonResourceAttributes = 2;
}

message SubjectAccessReviewStatus {
  optional bool allowed = 1;
  optional bool denied = 4;
  optional string reason = 2;
  optional string evaluationError = 3;
}

message ExtraValue {
  repeated string items = 1;
}

message ExtraEntry {
  optional string key = 1;
  optional ExtraValue value = 2;
}

message SubjectAccessReviewSpec {
  optional ResourceAttributes resourceAttributes = 1;
  optional NonResourceAttributes nonResourceAttributes = 2;
  optional string user = 3;
  repeated string groups = 4;
  repeated ExtraEntry extra = 5;
  optional string uid = 6;
}

message SubjectAccessReview {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional SubjectAccessReviewSpec spec = 2;
  optional SubjectAccessReviewStatus status = 3;
}

message LocalSubjectAccessReview {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional SubjectAccessReviewSpec spec = 2;
  optional SubjectAccessReviewStatus status = 3;
}

message ResourceRule {
  repeated string verbs = 1;
  repeated string apiGroups = 2;
  repeated string resources = 3;
  repeated string resourceNames = 4;
}

message NonResourceRule {
  repeated string verbs = 1;
  repeated string nonResourceURLs = 2;
}

message SelfSubjectRulesReviewSpec {
  optional string namespace = 1;
}

message SubjectRulesReviewStatus {
  repeated ResourceRule resourceRules = 1;
  repeated NonResourceRule nonResourceRules = 2;
  optional bool incomplete = 3;
  optional string evaluationError = 4;
}

message SelfSubjectRulesReview {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional SelfSubjectRulesReviewSpec spec = 2;
  optional SubjectRulesReviewStatus status = 3;
}

message SelfSubjectAccessReview {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional SelfSubjectAccessReviewSpec spec = 2;
  optional SubjectAccessReviewStatus status = 3;
}
`;

export const AUTHENTICATION_V1_PROTO = `
syntax = "proto2";
package k8s.io.api.authentication.v1;

message ExtraValue {
  repeated string items = 1;
}

message ExtraEntry {
  optional string key = 1;
  optional ExtraValue value = 2;
}

message UserInfo {
  optional string username = 1;
  optional string uid = 2;
  repeated string groups = 3;
  repeated ExtraEntry extra = 4;
}

message BoundObjectReference {
  optional string kind = 1;
  optional string apiVersion = 2;
  optional string name = 3;
  optional string uid = 4;
}

message TokenRequestSpec {
  repeated string audiences = 1;
  optional int64 expirationSeconds = 4;
  optional BoundObjectReference boundObjectRef = 3;
}

message TokenRequestStatus {
  optional string token = 1;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time expirationTimestamp = 2;
}

message TokenRequest {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional TokenRequestSpec spec = 2;
  optional TokenRequestStatus status = 3;
}

message TokenReviewSpec {
  optional string token = 1;
  repeated string audiences = 2;
}

message TokenReviewStatus {
  optional bool authenticated = 1;
  optional UserInfo user = 2;
  repeated string audiences = 4;
  optional string error = 3;
}

message TokenReview {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional TokenReviewSpec spec = 2;
  optional TokenReviewStatus status = 3;
}

message SelfSubjectReviewStatus {
  optional UserInfo userInfo = 1;
}

message SelfSubjectReview {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional SelfSubjectReviewStatus status = 2;
}
`;

/** apimachinery's value types: `resource.Quantity` (JSON: its string) and `intstr.IntOrString` (JSON: a number or a string). */
export const QUANTITY_PROTO = `
syntax = "proto2";
package k8s.io.apimachinery.pkg.api.resource;

message Quantity {
  optional string string = 1;
}
`;

export const INT_OR_STRING_PROTO = `
syntax = "proto2";
package k8s.io.apimachinery.pkg.util.intstr;

message IntOrString {
  optional int64 type = 1;
  optional int32 intVal = 2;
  optional string strVal = 3;
}
`;

export const CERTIFICATES_V1_PROTO = `
syntax = "proto2";
package k8s.io.api.certificates.v1;

message ExtraValue {
  repeated string items = 1;
}

message ExtraEntry {
  optional string key = 1;
  optional ExtraValue value = 2;
}

message CertificateSigningRequestSpec {
  optional bytes request = 1;
  optional string username = 2;
  optional string uid = 3;
  repeated string groups = 4;
  repeated string usages = 5;
  repeated ExtraEntry extra = 6;
  optional string signerName = 7;
  optional int32 expirationSeconds = 8;
}

message CertificateSigningRequestCondition {
  optional string type = 1;
  optional string reason = 2;
  optional string message = 3;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastUpdateTime = 4;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 5;
  optional string status = 6;
}

message CertificateSigningRequestStatus {
  repeated CertificateSigningRequestCondition conditions = 1;
  optional bytes certificate = 2;
}

message CertificateSigningRequest {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional CertificateSigningRequestSpec spec = 2;
  optional CertificateSigningRequestStatus status = 3;
}

message CertificateSigningRequestList {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated CertificateSigningRequest items = 2;
}
`;

export const ALL_PROTO_SOURCES: readonly string[] = [
  QUANTITY_PROTO,
  INT_OR_STRING_PROTO,
  META_V1_PROTO,
  RUNTIME_PROTO,
  CORE_V1_PROTO,
  COORDINATION_V1_PROTO,
  EVENTS_V1_PROTO,
  RBAC_V1_PROTO,
  AUTHORIZATION_V1_PROTO,
  AUTHENTICATION_V1_PROTO,
  CERTIFICATES_V1_PROTO,
];
