/**
 * `@kubekit/generic-controlplane/server`: the HTTP front a consumer composes or extends — the
 * `ApiServer` (`plane.server`: add resources at run time, mount `handle` in another server), the
 * handler-chain seams (stages, authentication, authorization), health checks, flow control
 * configuration and metrics.
 */
export { ApiServer, type ApiServerOptions, type HandlerStage, type TlsServingOptions } from "./api-server.js";
export { inProcessTransport, type RequestHandler } from "./in-process-transport.js";
export type { RequestContext } from "./context.js";
export type { NonResourceRequestInfo, RequestInfo, ResourceRequestInfo, Verb } from "./request-info.js";
// Handlers of other packages' subresources (a binding, a scale, served from a stage) read their request body through this.
export { readBody, type BodyReadLimits } from "./body.js";
// Resources of other packages whose typed clients send protobuf (kubectl 1.32's `create`).
export type { JsonFieldRules, ProtobufKinds, ProtobufMessages } from "../protobuf/message-types.js";
export type { ServedResource } from "./served-resource.js";
export type { HealthCheck, HealthEndpoint } from "./health.js";
export { jsonLineLogger, type Logger, type LogRecord } from "./logger.js";
export type { AuditOptions } from "./filters/audit.js";
export { createAuditLog, type AuditBackend, type AuditLogOptions } from "../audit/log-backend.js";
export {
  evaluateAuditPolicy,
  METADATA_POLICY,
  parseAuditPolicy,
  type AuditLevel,
  type AuditPolicy,
  type AuditPolicyRule,
  type AuditStage,
} from "../audit/policy.js";
export { kubeconfigFor, type KubeconfigCredentials } from "./kubeconfig.js";
export { KUBE_API_MAJOR, KUBE_API_MINOR, versionInfo } from "./version-info.js";
export {
  ANONYMOUS,
  alwaysAllow,
  type AuthorizationAttributes,
  type AuthorizationDecision,
  type Authorizer,
  type NonResourceRuleInfo,
  type ResourceRuleInfo,
  type RulesInfo,
  type UserInfo,
} from "./access-reviews.js";
export {
  defaultFlowSchemas,
  defaultPriorityLevels,
  type FlowSchema,
  type NonResourcePolicyRule,
  type PolicyRulesWithSubjects,
  type PriorityLevelConfiguration,
  type ResourcePolicyRule,
  type Subject,
} from "./flowcontrol/defaults.js";
export { ApiMetrics, type ApiMetricsOptions, type RequestLabels } from "../metrics/api-metrics.js";
export type { DiscoveryDocuments, OpenApiDocuments } from "./documents.js";
