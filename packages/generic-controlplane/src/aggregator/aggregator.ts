import type { DiscoveryDocuments } from "../discovery/discovery.js";
import type { OpenApiDocuments } from "../openapi/documents.js";
import type { ResourceDefinition } from "../registry/rest/resource-definition.js";
import type { ResourceStore } from "../registry/types.js";
import type { HandlerStage } from "../server/filters/stages.js";
import type { ServiceResolver } from "../webhook/client-config.js";
import { AvailabilityController } from "./availability.js";
import { mergedDiscovery, mergedOpenApi } from "./documents.js";
import { syncLocalAPIServices } from "./local.js";
import { aggregatorProxyStage } from "./proxy.js";

export interface AggregatorOptions {
  /** The APIService store. */
  store: ResourceStore;
  /** Resolves APIServices' `spec.service`; default `https://<name>.<namespace>.svc:<port>`. */
  serviceResolver?: ServiceResolver | undefined;
  /** How often every service-backed APIService is checked again (default 30 s). */
  availabilityIntervalMs?: number | undefined;
  maxBodyBytes: number;
  /** The server's served definitions now. */
  definitions(): readonly ResourceDefinition[];
  /** Makes the server rebuild discovery and OpenAPI. */
  invalidateDocuments(): void;
}

export interface Aggregator {
  /** Proxies requests of service-backed group versions; runs last among the handler stages. */
  readonly stage: HandlerStage;
  /** The local documents with the extension servers' group versions merged in. */
  documents(local: { discovery: DiscoveryDocuments; openapi: OpenApiDocuments }): {
    discovery: DiscoveryDocuments;
    openapi: OpenApiDocuments;
  };
  /** Registers the local APIServices and starts checking the remote ones. */
  start(): Promise<void>;
  /** The served set changed: local APIServices follow (no-op before `start`). */
  resourcesChanged(): void;
  stop(): Promise<void>;
}

/** kube-aggregator in front of the control plane (upstream's last server in the chain). */
export function createAggregator(options: AggregatorOptions): Aggregator {
  const availability = new AvailabilityController({
    store: options.store,
    resolver: options.serviceResolver,
    ...(options.availabilityIntervalMs === undefined ? {} : { intervalMs: options.availabilityIntervalMs }),
    onChange: () => options.invalidateDocuments(),
  });
  let started = false;
  // Local syncs run one after another, the last always seeing the latest served set.
  let syncing: Promise<void> = Promise.resolve();
  const syncLocal = () => {
    syncing = syncing.then(() => syncLocalAPIServices(options.store, options.definitions())).catch(() => undefined);
    return syncing;
  };
  return {
    stage: aggregatorProxyStage(availability, { maxBodyBytes: options.maxBodyBytes }),
    documents: (local) => ({
      discovery: mergedDiscovery(local.discovery, availability.remotes),
      openapi: mergedOpenApi(local.openapi, availability.remotes),
    }),
    async start() {
      started = true;
      await syncLocalAPIServices(options.store, options.definitions());
      await availability.start();
    },
    resourcesChanged() {
      if (started) void syncLocal();
    },
    async stop() {
      started = false;
      await syncing;
      await availability.stop();
    },
  };
}
