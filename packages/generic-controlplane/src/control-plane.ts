import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { ControllerManager } from "./controllers/manager.js";
import { createControllers, type ControlPlaneControllers, type InProcessControllers } from "./control-plane/controllers.js";
import { startFlowControlObjects } from "./control-plane/flow-control.js";
import { healthChecks } from "./control-plane/health-checks.js";
import { cachedObjectCounts, countStoredObjects } from "./control-plane/object-counts.js";
import { buildServedResources, groupResource, servedDefinitions } from "./control-plane/served-resources.js";
import { cacheAdmissionConfigurations } from "./control-plane/admission-caches.js";
import { orderedAdmission } from "./control-plane/admission-chain.js";
import { createSystemNamespaces } from "./control-plane/system-namespaces.js";
import { CrdController } from "./apiextensions/controller.js";
import type { ConverterFactory } from "./apiextensions/conversion.js";
import { customResourceStage } from "./apiextensions/custom-resource-stage.js";
import { CRD_GROUP, CRD_PLURAL } from "./apiextensions/types.js";
import { createDiscoveryDocuments } from "./discovery/discovery.js";
import { authenticationApiResources, serviceAccountTokenSubresource } from "./authn/api-resources.js";
import { createOpenApiDocuments } from "./openapi/documents.js";
import { ApiMetrics } from "./metrics/api-metrics.js";
import type { ResourceDefinition } from "./registry/rest/resource-definition.js";
import type { ResourceStore } from "./registry/types.js";
import type { AdmissionPlugin } from "./admission/types.js";
import { selectBuiltinResources } from "./control-plane/builtin-resources.js";
import { accessReviewStage, alwaysAllow, type Authorizer } from "./server/access-reviews.js";
import { BOOTSTRAP_HOOK } from "./rbac/bootstrap.js";
import { setUpAuthorization, withLoopbackToken, withRbacDefinitions, type AuthorizationOptions } from "./control-plane/authorization.js";
import { ApiServer, type ApiServerOptions, type HandlerStage } from "./server/api-server.js";
import { DEFAULT_MAX_BODY_BYTES } from "./server/body.js";
import { kubeconfigFor, type KubeconfigCredentials } from "./server/kubeconfig.js";
import type { TlsServingOptions } from "./server/api-server.js";
import {
  controlPlaneAuthentication,
  loopbackCredentials,
  serviceAccountTokenConfig,
  type AuthenticationOptions,
  type ServiceAccountTokenOptions,
} from "./control-plane/authentication.js";
import type { Logger } from "./server/logger.js";
import { namespaceLifecycle } from "./admission/plugin/namespace-lifecycle.js";
import { certificateSigningRequestAdmission } from "./certificates/admission.js";
import { limitRanger } from "./admission/plugin/limit-ranger.js";
import { resourceQuotaAdmission } from "./admission/plugin/resource-quota.js";
import type { QuotaEvaluator } from "./quota/evaluator.js";
import { validatingAdmissionPolicy } from "./admission/plugin/validating-policy/plugin.js";
import type { MatchConditionEvaluator } from "./admission/plugin/webhooks/match-conditions.js";
import { webhookAdmission } from "./admission/plugin/webhooks/plugin.js";
import { defaultMatchConditionEvaluator, withMatchConditionEvaluator } from "./admission/plugin/webhooks/configurations.js";
import type { ServiceResolver } from "./webhook/client-config.js";
import { currentAdmissionRequestContext } from "./admission/request-context.js";
import { createAggregator, type Aggregator } from "./aggregator/aggregator.js";
import { versionInfo } from "./server/version-info.js";
import { createMemoryStorage } from "./storage/memory.js";
import type { Storage } from "./storage/types.js";

export interface ControlPlaneOptions {
  /** Where objects live. Default: a fresh in-memory store. The control plane closes it on `close()`. */
  storage?: Storage;
  /** Resource types to serve. Default: every built-in. Pick a subset and add your own definitions. */
  resources?: readonly ResourceDefinition[];
  /**
   * Admission plugins, run in order (mutating `admit` hooks first, then `validate`) in
   * kube-apiserver's chain: NamespaceLifecycle, LimitRanger, these, MutatingAdmissionWebhook,
   * CertificateSigningRequests, ValidatingAdmissionPolicy, ValidatingAdmissionWebhook, ResourceQuota.
   */
  admission?: readonly AdmissionPlugin[];
  /**
   * Admission webhooks (served when the webhook configuration resources are): how `service`
   * client configs are reached (default `https://<name>.<namespace>.svc:<port>`), and the CEL
   * environment of matchConditions (default: the admission CEL environment, as upstream's).
   */
  webhooks?: { serviceResolver?: ServiceResolver; matchConditions?: MatchConditionEvaluator };
  /**
   * APIService aggregation (when APIServices are served): how `spec.service` is reached (default
   * `https://<name>.<namespace>.svc:<port>`) and how often extension servers are checked (default 30 s).
   */
  aggregator?: { serviceResolver?: ServiceResolver; availabilityIntervalMs?: number };
  /** NamespaceLifecycle admission and the system namespaces. Default true (when namespaces are served). */
  namespaceLifecycle?: boolean;
  /** Default `127.0.0.1`. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Names the kubeconfig's cluster, user and context. Default `kubekit`. */
  name?: string;
  /** Structured request and error logs. Default: none. */
  logger?: Logger;
  /**
   * Extra handler-chain stages run before dispatch, in order — the seam for authentication,
   * authorization, impersonation, flow control and audit.
   */
  stages?: readonly HandlerStage[];
  /**
   * Authorizes every request and answers the access reviews (`kubectl auth can-i`), like a
   * `Webhook` authorization mode; `system:masters` is always allowed. Default: every request
   * allowed, like kube-apiserver's `--authorization-mode=AlwaysAllow`. See also `authorization`.
   */
  authorizer?: Authorizer;
  /**
   * Audit logging, as kube-apiserver's `--audit-policy-file` with a log backend:
   * `{ policy: parseAuditPolicy(yaml), backend: createAuditLog({ path, maxSizeMB, maxBackups }) }`.
   * The control plane closes the backend on `close()`. Default: no audit events.
   */
  audit?: ApiServerOptions["audit"];
  /**
   * kube-apiserver's `--authorization-mode`: e.g. `{ modes: ["RBAC"] }` serves the RBAC types,
   * ensures the bootstrap roles and bindings (post-start hook `rbac/bootstrap-roles`), runs the
   * ClusterRole aggregation controller, checks escalation on RBAC writes and authorizes every
   * request; `Webhook` asks `webhook`. Unset: AlwaysAllow (or `authorizer` alone).
   */
  authorization?: AuthorizationOptions;
  /**
   * Serve HTTPS (kube-apiserver's `--tls-cert-file`, `--tls-private-key-file`, `--client-ca-file`):
   * PEM serving certificate and key; with `clientCA`, client certificates signed by it authenticate
   * their CN as the user and O as the groups (a `clientCA` turns `authentication` on). Default: plain HTTP.
   */
  tls?: Pick<TlsServingOptions, "cert" | "key" | "clientCA">;
  /**
   * Authenticate every request, in kube-apiserver's order: client certificates, bearer tokens (the
   * token file, service account tokens), then anonymous for health, version and discovery only.
   * Failed credentials get 401. Default: on with its defaults when `tls.clientCA` is given, otherwise
   * off (every request is `system:anonymous`, or who `authenticate` says).
   */
  authentication?: AuthenticationOptions;
  /** Service account token signing and verification (TokenRequest, TokenReview, OIDC discovery). Default: a key generated at startup. */
  serviceAccountTokens?: ServiceAccountTokenOptions;
  /** Credentials the generated kubeconfig carries: the CA of the serving certificate and a client certificate or token. */
  kubeconfigCredentials?: KubeconfigCredentials;
  /** Request body limit in bytes (default 3 MiB, like kube-apiserver). */
  maxBodyBytes?: number;
  /**
   * Request body deadlines in milliseconds: no byte for `bodyReadIdleTimeoutMs` (default 10000) or
   * no complete body after `bodyReadTimeoutMs` (default 60000) answers 408 Timeout. 0 = no deadline.
   */
  bodyReadIdleTimeoutMs?: number;
  bodyReadTimeoutMs?: number;
  /**
   * Who sent each request, before flow control sees it (the authentication filter's place);
   * without it every request is `system:anonymous` in one flow.
   */
  authenticate?: ApiServerOptions["authenticate"];
  /**
   * API Priority and Fairness (default true, like kube-apiserver's `--enable-priority-and-fairness`):
   * FlowSchemas classify requests into priority levels sharing `maxRequestsInflight +
   * maxMutatingRequestsInflight` seats, with fair per-flow queues. false: the max-in-flight limits apply.
   */
  enablePriorityAndFairness?: boolean;
  /** Flow control configuration; default upstream's mandatory and suggested FlowSchemas and priority levels. */
  flowSchemas?: ApiServerOptions["flowSchemas"];
  priorityLevels?: ApiServerOptions["priorityLevels"];
  /** Non-watch requests in flight beyond which new ones get 429 (defaults 400 and 200, like kube-apiserver; 0 = no limit). */
  maxRequestsInflight?: number;
  maxMutatingRequestsInflight?: number;
  /** Deadline of every request but watches, in ms (kube-apiserver's `--request-timeout`, default 60000; 0 = only the `timeout` parameter). */
  requestTimeoutMs?: number;
  /** Watches without `timeoutSeconds` last between this and twice this many seconds (default 1800). */
  minRequestTimeoutSeconds?: number;
  /**
   * On `close()`, `/readyz` fails at once and requests are still served for this many
   * milliseconds before the drain starts (kube-apiserver's `--shutdown-delay-duration`). Default 0.
   */
  shutdownDelayMs?: number;
  /** Export Node process metrics on `/metrics` next to the apiserver ones (default true). */
  processMetrics?: boolean;
  /**
   * Run controllers in-process against this server, like kube-controller-manager next to
   * kube-apiserver, their requests handed to the server's handler without a connection (every
   * filter runs, with the loopback token): `true` for every controller (namespace deletion, garbage collection)
   * under leader election on Lease `kube-system/kube-controller-manager`, or the manager's
   * options (`controllers: ["*", "-garbagecollector"]`, `leaderElection: false`, ...). Default off.
   * Their `workqueue_*` metrics join `/metrics`.
   */
  controllers?: boolean | ControlPlaneControllers;
  /**
   * ResourceQuota's evaluators of resources measured beyond an object count (a pod's requests, a
   * Service's node ports), used by the ResourceQuota admission plugin and the `resourcequota`
   * controller alike; every other resource is counted as `count/<resource>[.<group>]`.
   */
  quotaEvaluators?: readonly QuotaEvaluator[];
  /**
   * Serve the custom resources that CustomResourceDefinitions define, with their naming,
   * establishing and cleanup (default true whenever `customresourcedefinitions.apiextensions.k8s.io`
   * is among `resources`, as it is by default). Conversion `Webhook` calls the CRD's conversion
   * webhook (a `service` resolved by `webhooks.serviceResolver`); an object plugs in `converters`
   * that take precedence.
   */
  customResourceDefinitions?: boolean | CustomResourceDefinitionOptions;
}

export interface CustomResourceDefinitionOptions {
  /** Builds the converter of a CRD whose `spec.conversion.strategy` is not `None`, instead of the built-in `Webhook` one (undefined: the built-in one). */
  converters?: ConverterFactory;
}

export type { ControlPlaneControllers, AuthorizationOptions };

export interface ControlPlane {
  /** `http://<host>:<port>`, or `https://` with `tls`. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** A kubeconfig (YAML) for the server, its context named after the control plane. */
  readonly kubeconfig: string;
  writeKubeconfig(path: string): Promise<void>;
  readonly storage: Storage;
  /** The HTTP server: add resources at run time, or mount `handle` in another server. */
  readonly server: ApiServer;
  /** The in-process controller manager, when `controllers` is on. */
  readonly controllers: ControllerManager | undefined;
  /** The REST storage of a served resource, for in-process controllers. */
  store(group: string, plural: string): ResourceStore | undefined;
  /** The admission chain every served resource's store runs, for stores added later (subresources). */
  readonly admission: readonly AdmissionPlugin[];
  /** Graceful shutdown: ends watches, waits for in-flight requests, closes the storage. */
  close(): Promise<void>;
}

/** What the control plane tells the ApiServer: its resources and checks, and the options passed through. */
function apiServerOptions(
  options: ControlPlaneOptions,
  parts: Pick<
    ApiServerOptions,
    "resources" | "documents" | "health" | "metrics" | "storedObjects" | "authorizer" | "authenticate" | "tls" | "onResourcesChanged"
  >,
  ownStages: readonly HandlerStage[],
  lastStages: readonly HandlerStage[] = [],
): ApiServerOptions {
  return {
    ...parts,
    version: versionInfo(),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.audit ? { audit: options.audit } : {}),
    stages: [
      accessReviewStage({ maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES }),
      ...ownStages,
      ...(options.stages ?? []),
      ...lastStages,
    ],
    ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
    ...(options.bodyReadIdleTimeoutMs !== undefined ? { bodyReadIdleTimeoutMs: options.bodyReadIdleTimeoutMs } : {}),
    ...(options.bodyReadTimeoutMs !== undefined ? { bodyReadTimeoutMs: options.bodyReadTimeoutMs } : {}),
    ...(options.enablePriorityAndFairness !== undefined ? { enablePriorityAndFairness: options.enablePriorityAndFairness } : {}),
    ...(options.flowSchemas ? { flowSchemas: options.flowSchemas } : {}),
    ...(options.priorityLevels ? { priorityLevels: options.priorityLevels } : {}),
    ...(options.shutdownDelayMs !== undefined ? { shutdownDelayMs: options.shutdownDelayMs } : {}),
    ...(options.minRequestTimeoutSeconds !== undefined ? { minRequestTimeoutSeconds: options.minRequestTimeoutSeconds } : {}),
    ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
    ...(options.maxRequestsInflight !== undefined ? { maxRequestsInflight: options.maxRequestsInflight } : {}),
    ...(options.maxMutatingRequestsInflight !== undefined ? { maxMutatingRequestsInflight: options.maxMutatingRequestsInflight } : {}),
  };
}

/**
 * Starts a Kubernetes-style API server serving `resources` from `storage` (the shape of
 * KEP-4080's generic control plane). Resolves once it accepts requests and the system
 * namespaces exist.
 */
export async function createControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const storage = options.storage ?? createMemoryStorage();
  const resources = withMatchConditionEvaluator(options.resources ?? selectBuiltinResources(), options.webhooks?.matchConditions);
  const definitions = withRbacDefinitions(servedDefinitions(resources, options.enablePriorityAndFairness !== false), options.authorization);

  // The stores run the chain they are given; its plugins read those stores (NamespaceLifecycle the
  // namespaces, ResourceQuota the quotas), so the chain is filled once below, when they exist.
  const admission: AdmissionPlugin[] = [];
  const { served, stores, namespaces } = buildServedResources(definitions, storage, admission);
  const configurations = cacheAdmissionConfigurations(served, stores);
  const withLifecycle = options.namespaceLifecycle !== false && namespaces !== undefined;
  const lifecycle = withLifecycle ? namespaceLifecycle(namespaces) : undefined;
  const limitRangeStore = stores.get("limitranges");
  const quotaStore = stores.get("resourcequotas");
  const limits = limitRangeStore === undefined ? undefined : limitRanger(limitRangeStore);
  const quota =
    quotaStore === undefined
      ? undefined
      : resourceQuotaAdmission(quotaStore, { ...(options.quotaEvaluators !== undefined ? { evaluators: options.quotaEvaluators } : {}) });
  const webhooks = webhookAdmission({
    mutatingConfigurations: configurations["mutatingwebhookconfigurations.admissionregistration.k8s.io"],
    validatingConfigurations: configurations["validatingwebhookconfigurations.admissionregistration.k8s.io"],
    namespaces,
    served: () => server.definitions,
    serviceResolver: options.webhooks?.serviceResolver,
    matchConditions: options.webhooks?.matchConditions ?? defaultMatchConditionEvaluator,
  });
  // Approve and sign are asked of the authorizer set up below.
  let certificatesAuthorizer: Authorizer = alwaysAllow;
  const certificates = stores.has("certificatesigningrequests.certificates.k8s.io")
    ? certificateSigningRequestAdmission(() => certificatesAuthorizer)
    : undefined;
  const policies = configurations["validatingadmissionpolicies.admissionregistration.k8s.io"];
  const policyBindings = configurations["validatingadmissionpolicybindings.admissionregistration.k8s.io"];
  const policy =
    policies === undefined || policyBindings === undefined
      ? undefined
      : validatingAdmissionPolicy({
          policies,
          bindings: policyBindings,
          namespaces,
          served: () => server.definitions,
          store: (definition) => server.resource(definition.group, definition.version, definition.plural)?.store,
          requestContext: currentAdmissionRequestContext,
        });
  admission.push(
    ...orderedAdmission(
      {
        NamespaceLifecycle: lifecycle,
        LimitRanger: limits,
        MutatingAdmissionWebhook: webhooks.mutating,
        CertificateSigningRequests: certificates,
        ValidatingAdmissionPolicy: policy,
        ValidatingAdmissionWebhook: webhooks.validating,
        ResourceQuota: quota,
      },
      options.admission ?? [],
    ),
  );

  const apiServices = stores.get("apiservices.apiregistration.k8s.io");
  const aggregator: Aggregator | undefined =
    apiServices === undefined
      ? undefined
      : createAggregator({
          store: apiServices,
          serviceResolver: options.aggregator?.serviceResolver,
          availabilityIntervalMs: options.aggregator?.availabilityIntervalMs,
          maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
          definitions: (): readonly ResourceDefinition[] => server.definitions,
          invalidateDocuments: () => server.invalidateDocuments(),
        });

  const crdStore =
    options.customResourceDefinitions === false ? undefined : stores.get(groupResource({ group: CRD_GROUP, plural: CRD_PLURAL }));
  let crdController: CrdController | undefined;

  const authorization = setUpAuthorization(options, served, stores);
  certificatesAuthorizer = authorization.enforced ?? alwaysAllow;
  // In-process controllers authenticate with the loopback token, as system:masters.
  const loopback = await loopbackCredentials(options.tls !== undefined);
  const tokenOptions = options.serviceAccountTokens ?? {};
  const authentication = controlPlaneAuthentication({
    // A client CA is only given to authenticate with it (kube-apiserver's --client-ca-file turns the x509 authenticator on).
    authentication: options.authentication ?? (options.tls?.clientCA !== undefined ? {} : undefined),
    clientCertificates: options.tls?.clientCA !== undefined,
    // kube-apiserver hands anonymous requests to an authorizer that decides (RBAC denies what
    // system:anonymous may not do with 403), and never combines anonymous with AlwaysAllow.
    anonymousToAuthorizer: authorization.enforced !== undefined && options.authorization?.modes.includes("AlwaysAllow") !== true,
    tokens: await serviceAccountTokenConfig(tokenOptions),
    tokenOptions,
    loopback,
    serviceAccounts: stores.get("serviceaccounts"),
    secrets: stores.get("secrets"),
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
  });
  // A consumer's `authenticate` replaces the chain; the loopback token stays known either way while requests are authorized.
  const authenticate =
    options.authenticate !== undefined || (authentication.authenticate === undefined && authorization.enforced !== undefined)
      ? withLoopbackToken(loopback.token, options.authenticate)
      : authentication.authenticate;
  const tls: TlsServingOptions | undefined =
    options.tls === undefined
      ? undefined
      : {
          ...options.tls,
          ...(loopback.serving && loopback.serverName ? { sniCertificates: { [loopback.serverName]: loopback.serving } } : {}),
        };

  let systemNamespacesReady = !withLifecycle;
  const metrics = new ApiMetrics({
    processMetrics: options.processMetrics ?? true,
    countObjects: () => countStoredObjects(definitions, storage),
  });
  const gitVersion = versionInfo().gitVersion ?? "";
  const health = healthChecks(storage, () => systemNamespacesReady);
  const bootstrapHook = {
    name: `poststarthook/${BOOTSTRAP_HOOK}`,
    check: () => {
      if (!authorization.bootstrapped) throw new Error("not finished");
    },
  };
  for (const checks of Object.values(health)) checks.push(bootstrapHook);
  const server = new ApiServer(
    apiServerOptions(
      options,
      {
        // Impersonation asks the authorizer too: without one configured, everything is allowed (AlwaysAllow).
        authorizer: authorization.enforced ?? alwaysAllow,
        ...(authenticate ? { authenticate } : {}),
        resources: served,
        // Rebuilt whenever the served set changes (server.addResource / removeResource) or an extension server's APIs do.
        documents: (served) => {
          const local = {
            discovery: createDiscoveryDocuments([...served, ...authenticationApiResources], {
              subresources: serviceAccountTokenSubresource,
            }),
            openapi: createOpenApiDocuments(served, { version: gitVersion }),
          };
          return aggregator ? aggregator.documents(local) : local;
        },
        health,
        metrics,
        storedObjects: cachedObjectCounts(definitions, storage),
        onResourcesChanged: () => aggregator?.resourcesChanged(),
        ...(tls ? { tls } : {}),
      },
      [
        authentication.endpoints,
        ...(crdStore === undefined ? [] : [customResourceStage(() => crdController, options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES)]),
      ],
      aggregator ? [aggregator.stage] : [],
    ),
  );

  if (withLifecycle) {
    await createSystemNamespaces(namespaces);
    systemNamespacesReady = true;
  }

  try {
    await authorization.start((error) => options.logger?.({ level: "error", msg: "clusterrole aggregation failed", error: String(error) }));
  } catch (error) {
    authorization.stop();
    await storage.close();
    throw error;
  }

  const stopFlowControlObjects = await startFlowControlObjects(server, stores, options);
  await aggregator?.start();

  if (crdStore !== undefined) {
    const crdOptions = typeof options.customResourceDefinitions === "object" ? options.customResourceDefinitions : {};
    crdController = new CrdController({
      crds: crdStore,
      server,
      storage,
      admission,
      converters: crdOptions.converters,
      serviceResolver: options.webhooks?.serviceResolver,
      logger: options.logger,
    });
    // CRDs already stored are served before the server answers (a restart serves them at once).
    await crdController.start();
  }

  const host = options.host ?? "127.0.0.1";
  const address = await server.listen(options.port ?? 0, host);
  const urlHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `${tls ? "https" : "http"}://${urlHost}:${address.port}`;
  const kubeconfig = kubeconfigFor(url, options.name ?? "kubekit", "default", options.kubeconfigCredentials);
  options.logger?.({ msg: "serving", url, resources: definitions.map(groupResource) });

  let inProcess: InProcessControllers | undefined;
  if (options.controllers !== undefined && options.controllers !== false) {
    try {
      const chosen = options.controllers === true ? {} : options.controllers;
      inProcess = createControllers(
        options.quotaEvaluators === undefined ? chosen : { quotaEvaluators: options.quotaEvaluators, ...chosen },
        {
          url,
          server,
          loopback,
          // The CA clients are told to trust is the one pods are given too.
          rootCA: options.kubeconfigCredentials?.certificateAuthority,
          serves: (name) => stores.has(name),
          registry: metrics.registry,
          logger: options.logger,
        },
      );
    } catch (error) {
      // An impossible selection: nothing may keep running.
      await server.close();
      throw error;
    }
    inProcess.manager.start();
  }

  let closing: Promise<void> | undefined;
  return {
    url,
    host,
    port: address.port,
    kubeconfig,
    storage,
    server,
    controllers: inProcess?.manager,
    admission,
    async writeKubeconfig(path) {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, kubeconfig, { mode: 0o600 });
    },
    store: (group, plural) => stores.get(groupResource({ group, plural })),
    close() {
      closing ??= (async () => {
        // Controllers first, so they release their Lease while the server still answers.
        await inProcess?.manager.stop();
        inProcess?.loopback.close();
        stopFlowControlObjects?.();
        await aggregator?.stop();
        authorization.stop();
        crdController?.stop();
        lifecycle?.stop();
        limits?.stop();
        quota?.stop();
        for (const cache of Object.values(configurations)) cache.stop();
        await server.close();
        await options.audit?.backend.close();
        await storage.close();
        options.logger?.({ msg: "stopped" });
      })();
      return closing;
    },
  };
}
