import type { KubeObject } from "../../api/types.js";
import type { Namespace } from "../../resources/namespaces.js";
import { NAMESPACE_FINALIZER_KUBERNETES } from "../../resources/namespaces.js";
import type { Logger } from "../../server/logger.js";
import { isApiError, isConflict, isNotFound, type KubeClient, type ResourceRef } from "../client.js";
import {
  discoverPreferredResources,
  formatGroupVersionResource,
  GroupDiscoveryFailedError,
  supportsVerbs,
  type DiscoveredResource,
} from "../discovery.js";
import { NamespaceConditionUpdater, type ContentTotals } from "./conditions.js";
import { cloneJson } from "../../patch/json-value.js";

export const NAMESPACES: ResourceRef = { group: "", version: "v1", resource: "namespaces", namespaced: false };

/** The wait assumed for finalizers on remaining content to finish (upstream `finalizerEstimateSeconds`). */
export const FINALIZER_ESTIMATE_SECONDS = 15;

/** Content is still going away; try again in about `estimateSeconds` (upstream `ResourcesRemainingError`). */
export class ResourcesRemainingError extends Error {
  constructor(readonly estimateSeconds: number) {
    super(`some content remains in the namespace, estimate ${estimateSeconds} seconds before it is removed`);
    this.name = "ResourcesRemainingError";
  }
}

interface ResourceDeletion {
  estimateSeconds: number;
  remaining: number;
  remainingByFinalizer: Map<string, number>;
}

export interface NamespacedResourcesDeleterOptions {
  client: KubeClient;
  /** The spec finalizer this deleter owns (default `kubernetes`). */
  finalizerToken?: string;
  /** Served resources; default: discovery of preferred versions. */
  discoverResources?: () => Promise<DiscoveredResource[]>;
  logger?: Logger;
}

/**
 * Deletes everything in a terminating namespace, then removes its finalizer token through
 * `/finalize` (upstream `pkg/controller/namespace/deletion`). Every namespaced resource served
 * with list and delete is emptied — discovered on each pass, so types added at run time count.
 */
export class NamespacedResourcesDeleter {
  readonly #client: KubeClient;
  readonly #token: string;
  readonly #discover: () => Promise<DiscoveredResource[]>;
  readonly #logger: Logger | undefined;
  /** Resources found not to support an operation (405/404), remembered like upstream's opCache. */
  readonly #unsupported = new Set<string>();

  constructor(options: NamespacedResourcesDeleterOptions) {
    this.#client = options.client;
    this.#token = options.finalizerToken ?? NAMESPACE_FINALIZER_KUBERNETES;
    this.#discover = options.discoverResources ?? (() => discoverPreferredResources(options.client));
    this.#logger = options.logger;
  }

  /**
   * One pass over namespace `name`. Resolves when the namespace is finalized (or gone, or not
   * being deleted); rejects with `ResourcesRemainingError` when content is still going away, or
   * with what failed.
   */
  async delete(name: string): Promise<void> {
    let namespace: Namespace;
    try {
      namespace = await this.#client.get<Namespace>(NAMESPACES, undefined, name);
    } catch (error) {
      if (isNotFound(error)) return;
      throw error;
    }
    if (namespace.metadata?.deletionTimestamp === undefined) return;
    try {
      namespace = await this.#retryOnConflict(namespace, (ns) => this.#ensureTerminating(ns));
    } catch (error) {
      if (isNotFound(error)) return;
      throw error;
    }
    if (namespace.metadata?.deletionTimestamp === undefined) return;
    if (!(namespace.spec?.finalizers ?? []).includes(this.#token)) return;

    const estimate = await this.#deleteAllContent(namespace);
    if (estimate > 0) throw new ResourcesRemainingError(estimate);

    try {
      await this.#retryOnConflict(namespace, (ns) => this.#finalize(ns));
    } catch (error) {
      // Another deleter sharing the token may have finished the namespace first.
      if (isNotFound(error)) return;
      throw error;
    }
  }

  async #retryOnConflict(namespace: Namespace, fn: (ns: Namespace) => Promise<Namespace>): Promise<Namespace> {
    let latest = namespace;
    for (;;) {
      try {
        return await fn(latest);
      } catch (error) {
        if (!isConflict(error)) throw error;
        const previous = latest;
        latest = await this.#client.get<Namespace>(NAMESPACES, undefined, namespace.metadata?.name ?? "");
        if (previous.metadata?.uid !== latest.metadata?.uid) throw new Error("namespace uid has changed across retries", { cause: error });
      }
    }
  }

  async #ensureTerminating(namespace: Namespace): Promise<Namespace> {
    if (namespace.metadata?.deletionTimestamp === undefined || namespace.status?.phase === "Terminating") return namespace;
    return this.#client.update<Namespace>(
      NAMESPACES,
      undefined,
      { ...namespace, status: { ...namespace.status, phase: "Terminating" } },
      "status",
    );
  }

  async #finalize(namespace: Namespace): Promise<Namespace> {
    const finalizers = [...new Set((namespace.spec?.finalizers ?? []).filter((f) => f !== this.#token))].sort();
    try {
      return await this.#client.update<Namespace>(
        NAMESPACES,
        undefined,
        { ...namespace, spec: { ...namespace.spec, finalizers } },
        "finalize",
      );
    } catch (error) {
      if (isNotFound(error)) return namespace;
      throw error;
    }
  }

  /** Deletes all content; returns the estimate in seconds until what remains is gone. */
  async #deleteAllContent(namespace: Namespace): Promise<number> {
    const name = namespace.metadata?.name ?? "";
    const errors: Error[] = [];
    const conditions = new NamespaceConditionUpdater();
    let resources: DiscoveredResource[];
    try {
      resources = await this.#discover();
    } catch (error) {
      // Discovery failures are not fatal: act on the groups that answered, but do not finalize.
      if (!(error instanceof GroupDiscoveryFailedError)) throw error;
      resources = error.resources;
      errors.push(error);
      conditions.processDiscoveryError(error);
    }
    const deletable = resources.filter((r) => r.namespaced && supportsVerbs(r, "list", "delete"));
    let estimate = 0;
    const totals: ContentTotals = { remainingByResource: new Map(), remainingByFinalizer: new Map() };
    for (const resource of deletable) {
      let result: ResourceDeletion = { estimateSeconds: 0, remaining: 0, remainingByFinalizer: new Map() };
      try {
        result = await this.#deleteAllContentOf(resource, name);
      } catch (error) {
        const failure = error instanceof Error ? error : new Error(String(error));
        errors.push(failure);
        conditions.processDeleteContentError(failure);
        if (error instanceof RemainingContentError) result = error.result;
      }
      estimate = Math.max(estimate, result.estimateSeconds);
      if (result.remaining > 0) {
        totals.remainingByResource.set(`${resource.resource}.${resource.group}`, result.remaining);
        for (const [finalizer, n] of result.remainingByFinalizer)
          totals.remainingByFinalizer.set(finalizer, (totals.remainingByFinalizer.get(finalizer) ?? 0) + n);
      }
    }
    conditions.processContentTotals(totals);
    // Always written when changed: a condition may go back to its "ok" form.
    const status = cloneJson(namespace.status ?? {});
    if (conditions.update(status)) {
      try {
        await this.#client.update(NAMESPACES, undefined, { ...namespace, status }, "status");
      } catch (error) {
        this.#logger?.({ level: "warn", msg: "could not update namespace conditions", namespace: name, error: String(error) });
      }
    }
    if (errors.length === 1) throw errors[0]!;
    if (errors.length > 1) throw new AggregateError(errors, `[${errors.map((e) => e.message).join(", ")}]`);
    return estimate;
  }

  async #deleteAllContentOf(resource: DiscoveredResource, namespace: string): Promise<ResourceDeletion> {
    this.#logger?.({ msg: "deleting namespace content", namespace, resource: formatGroupVersionResource(resource) });
    if (!(await this.#deleteCollection(resource, namespace))) await this.#deleteEachItem(resource, namespace);
    const items = await this.#listCollection(resource, namespace);
    const result: ResourceDeletion = { estimateSeconds: 0, remaining: 0, remainingByFinalizer: new Map() };
    if (items === undefined || items.length === 0) return result;
    result.remaining = items.length;
    for (const item of items) {
      for (const finalizer of item.metadata?.finalizers ?? [])
        result.remainingByFinalizer.set(finalizer, (result.remainingByFinalizer.get(finalizer) ?? 0) + 1);
    }
    // Content held by finalizers is expected to go once they finish: wait, not an error.
    if (result.remainingByFinalizer.size > 0) {
      result.estimateSeconds = FINALIZER_ESTIMATE_SECONDS;
      return result;
    }
    throw new RemainingContentError(
      `unexpected items still remain in namespace: ${namespace} for gvr: ${formatGroupVersionResource(resource)}`,
      result,
    );
  }

  #key(operation: string, resource: ResourceRef): string {
    return `${operation} ${formatGroupVersionResource(resource)}`;
  }

  /** Whether deletecollection was supported (and so ran). */
  async #deleteCollection(resource: DiscoveredResource, namespace: string): Promise<boolean> {
    const key = this.#key("deletecollection", resource);
    if (!supportsVerbs(resource, "deletecollection") || this.#unsupported.has(key)) return false;
    try {
      // Background: the namespace goes only once everything in it is gone anyway.
      await this.#client.deleteCollection(resource, namespace, { propagationPolicy: "Background" });
      return true;
    } catch (error) {
      if (isApiError(error) && (error.code === 405 || error.code === 404)) {
        this.#unsupported.add(key);
        return false;
      }
      throw error;
    }
  }

  async #listCollection(resource: DiscoveredResource, namespace: string): Promise<KubeObject[] | undefined> {
    const key = this.#key("list", resource);
    if (this.#unsupported.has(key)) return undefined;
    try {
      return (await this.#client.list(resource, namespace)).items;
    } catch (error) {
      if (isApiError(error) && (error.code === 405 || error.code === 404)) {
        this.#unsupported.add(key);
        return undefined;
      }
      throw error;
    }
  }

  async #deleteEachItem(resource: DiscoveredResource, namespace: string): Promise<void> {
    const items = await this.#listCollection(resource, namespace);
    for (const item of items ?? []) {
      try {
        await this.#client.delete(resource, namespace, item.metadata?.name ?? "", { propagationPolicy: "Background" });
      } catch (error) {
        if (!isNotFound(error) && !(isApiError(error) && error.code === 405)) throw error;
      }
    }
  }
}

/** Items left that nothing explains (no finalizers): an error that still carries the counts. */
class RemainingContentError extends Error {
  constructor(
    message: string,
    readonly result: ResourceDeletion,
  ) {
    super(message);
  }
}
