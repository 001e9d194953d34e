import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { ControllerManager } from "./controllers/manager.js";
import { createControllers, type ControlPlaneControllers, type InProcessControllers } from "./control-plane/controllers.js";
import { startFlowControlObjects } from "./control-plane/flow-control.js";
import { healthChecks } from "./control-plane/health-checks.js";
import { cachedObjectCounts, countStoredObjects } from "./control-plane/object-counts.js";
import { buildServedResources, groupResource, servedDefinitions } from "./control-plane/served-resources.js";
import { createSystemNamespaces } from "./control-plane/system-namespaces.js";
import { createDiscoveryDocuments } from "./discovery/discovery.js";
import { createOpenApiDocuments } from "./openapi/documents.js";
import { ApiMetrics } from "./metrics/api-metrics.js";
import type { ResourceDefinition } from "./registry/resource-definition.js";
import type { ResourceStore } from "./registry/types.js";
import type { AdmissionPlugin } from "./admission/types.js";
import { selectBuiltinResources } from "./resources/index.js";
import { accessReviewStage, alwaysAllow, type Authorizer } from "./server/access-reviews.js";
import { ApiServer, type ApiServerOptions, type HandlerStage } from "./server/api-server.js";
import { DEFAULT_MAX_BODY_BYTES } from "./server/body.js";
import { kubeconfigFor } from "./server/kubeconfig.js";
import type { Logger } from "./server/logger.js";
import { namespaceLifecycle } from "./admission/namespace-lifecycle.js";
import { validatingAdmissionPolicy } from "./admission/validating-policy/plugin.js";
import type { MatchConditionEvaluator } from "./admission/webhooks/match-conditions.js";
import { webhookAdmission } from "./admission/webhooks/plugin.js";
import { defaultMatchConditionEvaluator, withMatchConditionEvaluator } from "./admission/webhooks/configurations.js";
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
  /** Admission plugins, run after NamespaceLifecycle in order (mutating `admit` hooks first, then `validate`). */
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
   * Answers the self-review APIs (`kubectl auth can-i`, `auth can-i --list`, `auth whoami`).
   * Default `alwaysAllow`, like kube-apiserver's `--authorization-mode=AlwaysAllow`.
   */
  authorizer?: Authorizer;
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
   * Run controllers in-process against this server's loopback URL, like kube-controller-manager
   * next to kube-apiserver: `true` for every controller (namespace deletion, garbage collection)
   * under leader election on Lease `kube-system/kube-controller-manager`, or the manager's
   * options (`controllers: ["*", "-garbagecollector"]`, `leaderElection: false`, ...). Default off.
   * Their `workqueue_*` metrics join `/metrics`.
   */
  controllers?: boolean | ControlPlaneControllers;
}

export type { ControlPlaneControllers };

export interface ControlPlane {
  /** `http://<host>:<port>`. */
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
  /** Graceful shutdown: ends watches, waits for in-flight requests, closes the storage. */
  close(): Promise<void>;
}

/** What the control plane tells the ApiServer: its resources and checks, and the options passed through. */
function apiServerOptions(
  options: ControlPlaneOptions,
  parts: Pick<ApiServerOptions, "resources" | "documents" | "health" | "metrics" | "storedObjects" | "onResourcesChanged">,
  lastStages: readonly HandlerStage[] = [],
): ApiServerOptions {
  return {
    ...parts,
    version: versionInfo(),
    ...(options.logger ? { logger: options.logger } : {}),
    stages: [accessReviewStage(options.authorizer ?? alwaysAllow, { maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES }), ...(options.stages ?? []), ...lastStages],
    ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
    ...(options.bodyReadIdleTimeoutMs !== undefined ? { bodyReadIdleTimeoutMs: options.bodyReadIdleTimeoutMs } : {}),
    ...(options.bodyReadTimeoutMs !== undefined ? { bodyReadTimeoutMs: options.bodyReadTimeoutMs } : {}),
    ...(options.authenticate ? { authenticate: options.authenticate } : {}),
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
  const definitions = servedDefinitions(resources, options.enablePriorityAndFairness !== false);

  // Admission is shared by reference: NamespaceLifecycle needs the namespaces store built here.
  const admission: AdmissionPlugin[] = [];
  const { served, stores, namespaces } = buildServedResources(definitions, storage, admission);
  const withLifecycle = options.namespaceLifecycle !== false && namespaces !== undefined;
  if (withLifecycle) admission.push(namespaceLifecycle(namespaces));
  admission.push(...(options.admission ?? []));
  const webhooks = webhookAdmission({
    mutatingConfigurations: stores.get("mutatingwebhookconfigurations.admissionregistration.k8s.io"),
    validatingConfigurations: stores.get("validatingwebhookconfigurations.admissionregistration.k8s.io"),
    namespaces,
    served: () => server.definitions,
    serviceResolver: options.webhooks?.serviceResolver,
    matchConditions: options.webhooks?.matchConditions ?? defaultMatchConditionEvaluator,
  });
  // Upstream's order: mutating webhooks, then ValidatingAdmissionPolicy, then validating webhooks.
  admission.push(webhooks.mutating);
  const policies = stores.get("validatingadmissionpolicies.admissionregistration.k8s.io");
  const policyBindings = stores.get("validatingadmissionpolicybindings.admissionregistration.k8s.io");
  if (policies !== undefined && policyBindings !== undefined) {
    admission.push(
      validatingAdmissionPolicy({
        policies,
        bindings: policyBindings,
        namespaces,
        served: () => server.definitions,
        store: (definition) => server.resource(definition.group, definition.version, definition.plural)?.store,
        requestContext: currentAdmissionRequestContext,
      }),
    );
  }
  admission.push(webhooks.validating);

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

  let systemNamespacesReady = !withLifecycle;
  const metrics = new ApiMetrics({ processMetrics: options.processMetrics ?? true, countObjects: () => countStoredObjects(definitions, storage) });
  const gitVersion = versionInfo().gitVersion ?? "";
  const server = new ApiServer(
    apiServerOptions(options, {
      resources: served,
      // Rebuilt whenever the served set changes (server.addResource / removeResource) or an extension server's APIs do.
      documents: (served) => {
        const local = { discovery: createDiscoveryDocuments(served), openapi: createOpenApiDocuments(served, { version: gitVersion }) };
        return aggregator ? aggregator.documents(local) : local;
      },
      health: healthChecks(storage, () => systemNamespacesReady),
      metrics,
      storedObjects: cachedObjectCounts(definitions, storage),
      onResourcesChanged: () => aggregator?.resourcesChanged(),
    }, aggregator ? [aggregator.stage] : []),
  );

  if (withLifecycle) {
    await createSystemNamespaces(namespaces);
    systemNamespacesReady = true;
  }

  const stopFlowControlObjects = await startFlowControlObjects(server, stores, options);
  await aggregator?.start();

  const host = options.host ?? "127.0.0.1";
  const address = await server.listen(options.port ?? 0, host);
  const urlHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${urlHost}:${address.port}`;
  const kubeconfig = kubeconfigFor(url, options.name ?? "kubekit");
  options.logger?.({ msg: "serving", url, resources: definitions.map(groupResource) });

  let inProcess: InProcessControllers | undefined;
  if (options.controllers !== undefined && options.controllers !== false) {
    try {
      inProcess = createControllers(options.controllers === true ? {} : options.controllers, {
        url,
        serves: (name) => stores.has(name),
        registry: metrics.registry,
        logger: options.logger,
      });
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
        await server.close();
        await storage.close();
        options.logger?.({ msg: "stopped" });
      })();
      return closing;
    },
  };
}
