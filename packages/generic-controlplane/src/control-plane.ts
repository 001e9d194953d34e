import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { badRequest } from "./api/errors/index.js";
import { isControlPlaneError } from "./errors.js";
import { KubeClient } from "./controllers/client.js";
import { ControllerManager, type ControllerManagerOptions } from "./controllers/manager.js";
import { createDiscoveryDocuments } from "./discovery/discovery.js";
import { createOpenApiDocuments } from "./openapi/documents.js";
import { decodeProtobuf, encodeProtobuf, protobufListParts, supportsProtobuf } from "./protobuf/codec.js";
import { ApiMetrics } from "./metrics/api-metrics.js";
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch, findDuplicateFields, findStrictFieldErrors, findUnknownFields } from "./patch/index.js";
import { createResourceStore } from "./registry/store.js";
import { toTable } from "./registry/table.js";
import type { ResourceDefinition } from "./registry/resource-definition.js";
import type { AdmissionPlugin, ResourceStore } from "./registry/types.js";
import { namespaceFinalizeStrategy, namespacesResource, shouldDeleteNamespaceDuringUpdate, SYSTEM_NAMESPACES } from "./resources/namespaces.js";
import { selectBuiltinResources } from "./resources/index.js";
import { accessReviewStage, alwaysAllow, type Authorizer } from "./server/access-reviews.js";
import { ApiServer, type ApiServerOptions, type HandlerStage } from "./server/api-server.js";
import { DEFAULT_MAX_BODY_BYTES } from "./server/body.js";
import type { HealthCheck } from "./server/health.js";
import { kubeconfigFor } from "./server/kubeconfig.js";
import type { Logger } from "./server/logger.js";
import { namespaceHandlers } from "./server/namespace-handlers.js";
import { namespaceLifecycle } from "./server/namespace-lifecycle.js";
import type { ResourceHandlers } from "./server/resource-handler.js";
import type { HandlerCodecs, ServedResource } from "./server/served-resource.js";
import { versionInfo } from "./server/version-info.js";
import { createMemoryStorage } from "./storage/memory.js";
import { flowSchemasResource, priorityLevelConfigurationsResource } from "./resources/flowcontrol.js";
import { startFlowControlConfig } from "./server/flowcontrol/config-controller.js";
import { defaultFlowSchemas, defaultPriorityLevels } from "./server/flowcontrol/defaults.js";
import type { Storage } from "./storage/types.js";

export interface ControlPlaneOptions {
  /** Where objects live. Default: a fresh in-memory store. The control plane closes it on `close()`. */
  storage?: Storage;
  /** Resource types to serve. Default: every built-in. Pick a subset and add your own definitions. */
  resources?: readonly ResourceDefinition[];
  /** Admission plugins, run after NamespaceLifecycle in order (mutating `admit` hooks first, then `validate`). */
  admission?: readonly AdmissionPlugin[];
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

/** Controller manager options for `createControlPlane` (client, metrics and logs are the control plane's). */
export type ControlPlaneControllers = Omit<ControllerManagerOptions, "client" | "registry" | "logger">;

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

/** Built-in controllers the default selection leaves out because what they work on is not served. */
function defaultlessControllers(serves: (groupResource: string) => boolean): string[] {
  const off: string[] = [];
  if (!serves("namespaces")) off.push("-namespace", "-serviceaccount");
  else if (!serves("serviceaccounts")) off.push("-serviceaccount");
  if (!serves("events")) off.push("-eventttl");
  return off;
}

function groupResource(definition: ResourceDefinition): string {
  return definition.group === "" ? definition.plural : `${definition.plural}.${definition.group}`;
}

/**
 * Starts a Kubernetes-style API server serving `resources` from `storage` (the shape of
 * KEP-4080's generic control plane). Resolves once it accepts requests and the system
 * namespaces exist.
 */
export async function createControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const storage = options.storage ?? createMemoryStorage();
  const definitions = [...(options.resources ?? selectBuiltinResources())];
  const withFlowControl = options.enablePriorityAndFairness !== false;
  // Like kube-apiserver, the flow control configuration is served as API objects while it is in force.
  if (withFlowControl) {
    for (const definition of [flowSchemasResource, priorityLevelConfigurationsResource]) {
      if (!definitions.some((d) => d.group === definition.group && d.plural === definition.plural)) definitions.push(definition);
    }
  }
  const seen = new Set<string>();
  for (const definition of definitions) {
    const key = `${definition.group}/${definition.version}/${definition.plural}`;
    if (seen.has(key)) throw badRequest(`resource ${groupResource(definition)} (${definition.version}) is defined twice`);
    seen.add(key);
  }

  const admission: AdmissionPlugin[] = [];
  const stores = new Map<string, ResourceStore>();
  const served: Array<ServedResource & { handlers?: ResourceHandlers }> = [];
  let namespaces: ResourceStore | undefined;
  for (const definition of definitions) {
    // Admission is shared by reference: NamespaceLifecycle is added once the namespaces store exists.
    const store = createResourceStore(definition, storage, { admission });
    stores.set(groupResource(definition), store);
    const entry: ServedResource & { handlers?: ResourceHandlers } = { definition, store };
    if (definition.group === "" && definition.plural === "namespaces") {
      namespaces = store;
      // Server-internal writers of the namespace lifecycle; see namespaceHandlers.
      const internal = { ...namespacesResource, statusSubresource: false };
      const termination = createResourceStore({ ...internal, strategy: { shouldDeleteDuringUpdate: shouldDeleteNamespaceDuringUpdate } }, storage);
      const finalize = createResourceStore({ ...internal, strategy: { ...namespaceFinalizeStrategy, shouldDeleteDuringUpdate: shouldDeleteNamespaceDuringUpdate } }, storage);
      entry.handlers = namespaceHandlers({ termination, finalize }, admission);
    }
    served.push(entry);
  }

  const withLifecycle = options.namespaceLifecycle !== false && namespaces !== undefined;
  if (withLifecycle) admission.push(namespaceLifecycle(namespaces!));
  admission.push(...(options.admission ?? []));

  const codecs: HandlerCodecs = {
    decodeProtobuf,
    encodeProtobuf: (object) => (supportsProtobuf(object.apiVersion ?? "", object.kind ?? "") ? encodeProtobuf(object) : undefined),
    protobufListParts,
    applyJsonPatch: (original, patch) => applyJsonPatch(original, patch),
    applyMergePatch: (original, patch) => applyMergePatch(original, patch),
    applyStrategicMergePatch: (original, patch, schema) => applyStrategicMergePatch(original, patch, schema),
    findUnknownFields: (object, schema) => findUnknownFields(object, schema),
    findDuplicateFields: (text, contentType) => findDuplicateFields(text, contentType),
    findStrictFieldErrors: (text, contentType, object, schema) => findStrictFieldErrors(text, contentType, object, schema),
    toTable: (definition, objects, tableOptions) => toTable(definition, objects, tableOptions),
  };

  let systemNamespacesReady = !withLifecycle;
  const storageCheck: HealthCheck = {
    name: "etcd",
    check: async () => {
      if (storage.checkHealth) await storage.checkHealth();
      else await storage.currentRevision();
    },
  };
  const ping: HealthCheck = { name: "ping", check: () => undefined };
  const log: HealthCheck = { name: "log", check: () => undefined };
  const namespacesHook: HealthCheck = {
    name: "poststarthook/start-system-namespaces-controller",
    check: () => {
      if (!systemNamespacesReady) throw new Error("not finished");
    },
  };

  const metrics = new ApiMetrics({
    processMetrics: options.processMetrics ?? true,
    countObjects: async () => {
      const counts: Array<{ resource: string; count: number }> = [];
      for (const definition of definitions) {
        // A type stored as another resource (events.k8s.io events) is counted under that resource.
        if (definition.storedAs !== undefined) continue;
        const prefix = definition.group === "" ? `/registry/${definition.plural}` : `/registry/${definition.group}/${definition.plural}`;
        counts.push({ resource: groupResource(definition), count: await storage.count(prefix) });
      }
      return counts;
    },
  });

  const gitVersion = versionInfo().gitVersion ?? "";

  // Object counts for flow control's work estimates, refreshed at most every 10 s per resource
  // (upstream reads them from its periodically updated storage object counts).
  const counts = new Map<string, { count: Promise<number | undefined>; at: number }>();
  const storedObjects = (group: string, resource: string): Promise<number | undefined> => {
    const key = `${group}/${resource}`;
    const cached = counts.get(key);
    if (cached && Date.now() - cached.at < 10_000) return cached.count;
    const definition = definitions.find((d) => d.group === group && d.plural === resource);
    if (definition === undefined) return Promise.resolve(undefined);
    const where = definition.storedAs ?? definition;
    const prefix = where.group === "" ? `/registry/${where.plural}` : `/registry/${where.group}/${where.plural}`;
    const count = storage.count(prefix).catch(() => undefined);
    counts.set(key, { count, at: Date.now() });
    return count;
  };

  const server = new ApiServer({
    resources: served,
    codecs,
    // Rebuilt whenever the served set changes (server.addResource / removeResource).
    documents: (served) => ({ discovery: createDiscoveryDocuments(served), openapi: createOpenApiDocuments(served, { version: gitVersion }) }),
    version: versionInfo(),
    health: {
      healthz: [ping, log, storageCheck, namespacesHook],
      livez: [ping, log, storageCheck, namespacesHook],
      readyz: [ping, log, storageCheck, namespacesHook],
    },
    metrics,
    ...(options.logger ? { logger: options.logger } : {}),
    stages: [accessReviewStage(options.authorizer ?? alwaysAllow, { decodeProtobuf, maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES }), ...(options.stages ?? [])],
    ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
    ...(options.bodyReadIdleTimeoutMs !== undefined ? { bodyReadIdleTimeoutMs: options.bodyReadIdleTimeoutMs } : {}),
    ...(options.bodyReadTimeoutMs !== undefined ? { bodyReadTimeoutMs: options.bodyReadTimeoutMs } : {}),
    ...(options.authenticate ? { authenticate: options.authenticate } : {}),
    storedObjects,
    ...(options.enablePriorityAndFairness !== undefined ? { enablePriorityAndFairness: options.enablePriorityAndFairness } : {}),
    ...(options.flowSchemas ? { flowSchemas: options.flowSchemas } : {}),
    ...(options.priorityLevels ? { priorityLevels: options.priorityLevels } : {}),
    ...(options.shutdownDelayMs !== undefined ? { shutdownDelayMs: options.shutdownDelayMs } : {}),
    ...(options.minRequestTimeoutSeconds !== undefined ? { minRequestTimeoutSeconds: options.minRequestTimeoutSeconds } : {}),
    ...(options.maxRequestsInflight !== undefined ? { maxRequestsInflight: options.maxRequestsInflight } : {}),
    ...(options.maxMutatingRequestsInflight !== undefined ? { maxMutatingRequestsInflight: options.maxMutatingRequestsInflight } : {}),
  });

  if (withLifecycle) {
    for (const name of SYSTEM_NAMESPACES) {
      try {
        await namespaces!.create(undefined, { apiVersion: "v1", kind: "Namespace", metadata: { name } });
      } catch (error) {
        if (!(isControlPlaneError(error) && error.code === "AlreadyExists")) throw error;
      }
    }
    systemNamespacesReady = true;
  }

  let stopFlowControlConfig: (() => void) | undefined;
  const flowSchemaStore = stores.get("flowschemas.flowcontrol.apiserver.k8s.io");
  const priorityLevelStore = stores.get("prioritylevelconfigurations.flowcontrol.apiserver.k8s.io");
  if (server.flowControl && flowSchemaStore && priorityLevelStore) {
    stopFlowControlConfig = await startFlowControlConfig(
      server.flowControl,
      { flowSchemas: flowSchemaStore, priorityLevels: priorityLevelStore },
      { flowSchemas: options.flowSchemas ?? defaultFlowSchemas(), priorityLevels: options.priorityLevels ?? defaultPriorityLevels() },
    );
  }

  const host = options.host ?? "127.0.0.1";
  const address = await server.listen(options.port ?? 0, host);
  const urlHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${urlHost}:${address.port}`;
  const kubeconfig = kubeconfigFor(url, options.name ?? "kubekit");
  options.logger?.({ msg: "serving", url, resources: definitions.map(groupResource) });

  let controllers: ControllerManager | undefined;
  let loopback: KubeClient | undefined;
  if (options.controllers !== undefined && options.controllers !== false) {
    loopback = new KubeClient({ server: url, userAgent: "kube-controller-manager" });
    const chosen = options.controllers === true ? {} : options.controllers;
    const serves = (groupResource: string) => stores.has(groupResource);
    try {
      if (chosen.leaderElection !== false && chosen.leaderElection !== undefined && !serves("leases.coordination.k8s.io")) {
        throw new Error("leader election needs leases.coordination.k8s.io to be served");
      }
      controllers = new ControllerManager({
        // One API server over one store: nothing to wait for before emptying a deleted namespace.
        namespaceDeletionGracePeriodMs: 0,
        // By default only controllers whose resources are served, and election only on a served Lease.
        controllers: ["*", ...defaultlessControllers(serves)],
        ...(serves("leases.coordination.k8s.io") ? {} : { leaderElection: false as const }),
        ...chosen,
        client: loopback,
        registry: metrics.registry,
        ...(options.logger !== undefined ? { logger: options.logger } : {}),
      });
    } catch (error) {
      // An unknown controller name: nothing may keep running.
      loopback.close();
      await server.close();
      throw badRequest((error as Error).message, { cause: error });
    }
    controllers.start();
  }

  let closing: Promise<void> | undefined;
  return {
    url,
    host,
    port: address.port,
    kubeconfig,
    storage,
    server,
    controllers,
    async writeKubeconfig(path) {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, kubeconfig, { mode: 0o600 });
    },
    store: (group, plural) => stores.get(group === "" ? plural : `${plural}.${group}`),
    close() {
      closing ??= (async () => {
        // Controllers first, so they release their Lease while the server still answers.
        await controllers?.stop();
        loopback?.close();
        stopFlowControlConfig?.();
        await server.close();
        await storage.close();
        options.logger?.({ msg: "stopped" });
      })();
      return closing;
    },
  };
}
