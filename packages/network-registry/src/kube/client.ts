import type { KubeObject, WatchEvent } from "@kubekit/generic-controlplane";
import { Informer, isNotFound, resourcePath, type KubeClient, type ResourceRef } from "@kubekit/generic-controlplane/controllers";
import { NetworkRegistryError } from "../errors.js";
import type { WhoisResult } from "../registry.js";
import { NETWORK_CLAIM_API_VERSION, NETWORK_CLAIM_KIND, type NetworkClaim } from "../types.js";
import {
  CLAIM_LABEL,
  CLIENT_FIELD_MANAGER,
  IP_FAMILY_LABEL,
  NETWORK_ALLOCATION_KIND,
  NETWORK_ALLOCATIONS,
  NETWORK_CLAIMS,
  isAllocationDecided,
  isClaimDecided,
  prefixObjectName,
  type NetworkAllocationObject,
  type NetworkAllocationSpec,
  type NetworkClaimObject,
} from "./api.js";
import { decisionOrder } from "./order.js";
import { loadRecordedDecisions } from "./recorded.js";

/*
 * The client side: components claim ranges and request blocks through the API server and wait
 * for the arbiter's decision; whois and watch read informer caches.
 */

const APPLY_PATCH = "application/apply-patch+yaml";
const DEFAULT_TIMEOUT_MS = 30_000;

export interface WaitOptions {
  /** How long to wait for the arbiter's decision (default 30 s); then `timeout`. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface ClaimOptions extends WaitOptions {
  /** Server-side apply field manager (default `kana-client`). */
  fieldManager?: string;
  /** Take over fields another manager owns (`--force-conflicts`). */
  force?: boolean;
  /** Called with the stored object right after the apply, before waiting (its resourceVersion is the write's). */
  onApplied?(object: NetworkClaimObject): void;
}

/** An allocation request: a `/prefixLength` from `pool` for `claim` (the object's spec), and the object's name. */
export interface AllocationRequest extends NetworkAllocationSpec {
  /** Object name; default: the block's name for a specific block, else generated from the claim name. */
  name?: string;
}

function apiError(action: string, error: unknown): NetworkRegistryError {
  const message = error instanceof Error ? error.message : String(error);
  return new NetworkRegistryError("api-error", `${action}: ${message}`, { cause: error });
}

/**
 * Resolves with the object once `decided(object)` holds, reading it and then watching it;
 * rejects with `timeout` after `timeoutMs`, or `api-error` when the object goes away.
 */
async function waitFor<T extends KubeObject>(
  client: KubeClient,
  ref: ResourceRef,
  name: string,
  decided: (object: T) => boolean,
  what: string,
  options: WaitOptions,
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    if (options.signal?.aborted) throw new NetworkRegistryError("timeout", `stopped waiting for ${what}`);
    let current: T;
    try {
      current = await client.get<T>(ref, undefined, name);
    } catch (error) {
      throw isNotFound(error)
        ? new NetworkRegistryError("api-error", `${what}: ${ref.resource} ${name} was deleted`, { cause: error })
        : apiError(`reading ${ref.resource} ${name}`, error);
    }
    if (decided(current)) return current;
    last = current;
    const remaining = deadline - Date.now();
    if (remaining <= 0) break;
    type Outcome = { object?: T; gone?: boolean; expired?: boolean };
    const outcome: Outcome = await new Promise<Outcome>((resolve) => {
      let handle: { stop(): void; done: Promise<void> } | undefined;
      let settled = false;
      const finish = (value: Outcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        handle?.stop();
        resolve(value);
      };
      const timer = setTimeout(() => finish({ expired: true }), remaining);
      const onAbort = () => finish({ expired: true });
      options.signal?.addEventListener("abort", onAbort, { once: true });
      client
        .watch(
          resourcePath(ref),
          { fieldSelector: `metadata.name=${name}`, resourceVersion: current.metadata?.resourceVersion, allowWatchBookmarks: true },
          (event: WatchEvent) => {
            if (event.type === "DELETED") finish({ gone: true });
            else if (event.type === "ADDED" || event.type === "MODIFIED") {
              const object = event.object as T;
              last = object;
              if (decided(object)) finish({ object });
            }
          },
        )
        .then(
          (h) => {
            handle = h;
            if (settled) h.stop();
            // The server ended the watch (or it expired): read again and watch again.
            void h.done.then(() => finish({}));
          },
          () => finish({}),
        ); // The watch could not start (e.g. 410 Gone): read again.
    });
    if (outcome.object !== undefined) return outcome.object;
    if (outcome.gone === true) throw new NetworkRegistryError("api-error", `${what}: ${ref.resource} ${name} was deleted`);
    if (outcome.expired === true) break;
  }
  throw new NetworkRegistryError(
    "timeout",
    `${what}: no decision within ${timeoutMs} ms (${ref.resource} ${name} at resourceVersion ${last?.metadata?.resourceVersion ?? "?"}); is the arbiter running?`,
  );
}

/**
 * Server-side apply `claim` as a NetworkClaim and wait until the arbiter has decided its spec.
 * Resolves with the stored object: `status.phase` `Allocated` or `Conflict` (refused records carry
 * the conflict), or `Invalid`. A refusal is an answer, not an error; errors are `api-error`
 * (the server refused the object, e.g. a CEL rule) and `timeout`.
 */
export async function claim(client: KubeClient, input: NetworkClaim, options: ClaimOptions = {}): Promise<NetworkClaimObject> {
  const name = input.metadata.name;
  const body = {
    apiVersion: NETWORK_CLAIM_API_VERSION,
    kind: NETWORK_CLAIM_KIND,
    metadata: {
      name,
      ...(input.metadata.labels ? { labels: input.metadata.labels } : {}),
      ...(input.metadata.annotations ? { annotations: input.metadata.annotations } : {}),
    },
    spec: { addressSpace: input.spec.addressSpace },
  };
  let applied: NetworkClaimObject;
  try {
    applied = (await client.request("PATCH", resourcePath(NETWORK_CLAIMS, undefined, name), {
      body,
      contentType: APPLY_PATCH,
      query: { fieldManager: options.fieldManager ?? CLIENT_FIELD_MANAGER, ...(options.force === true ? { force: true } : {}) },
    })) as NetworkClaimObject;
  } catch (error) {
    throw apiError(`applying NetworkClaim ${name}`, error);
  }
  options.onApplied?.(applied);
  if (isClaimDecided(applied)) return applied;
  const generation = applied.metadata.generation ?? 1;
  return waitFor<NetworkClaimObject>(
    client,
    NETWORK_CLAIMS,
    name,
    (o) => isClaimDecided(o) && (o.metadata.generation ?? 1) >= generation,
    `NetworkClaim ${name}`,
    options,
  );
}

/**
 * Create a NetworkAllocation and wait for the arbiter to pick the block (or to grant the one
 * asked for: a second request for the same block fails at once, with `api-error` AlreadyExists). Resolves with the object
 * (`status.prefix` is the block). When the arbiter cannot allocate, the request is deleted and
 * the registry's error is thrown (`pool-exhausted`, `pool-not-found`, `not-delegable`,
 * `invalid-argument`); also on `timeout` the request is deleted.
 */
export async function allocate(
  client: KubeClient,
  request: AllocationRequest,
  options: WaitOptions = {},
): Promise<NetworkAllocationObject> {
  const object = {
    apiVersion: NETWORK_CLAIM_API_VERSION,
    kind: NETWORK_ALLOCATION_KIND,
    metadata: {
      ...(request.name !== undefined
        ? { name: request.name }
        : request.prefix !== undefined
          ? { name: prefixObjectName(request.prefix) }
          : { generateName: `${request.claim}-` }),
      labels: { [CLAIM_LABEL]: request.claim, [IP_FAMILY_LABEL]: request.pool.includes(":") ? "IPv6" : "IPv4" },
    },
    spec: {
      claim: request.claim,
      pool: request.pool,
      prefixLength: request.prefixLength,
      reference: request.reference,
      ...(request.strategy !== undefined ? { strategy: request.strategy } : {}),
      ...(request.description !== undefined ? { description: request.description } : {}),
      ...(request.prefix !== undefined ? { prefix: request.prefix } : {}),
    },
  };
  let created: NetworkAllocationObject;
  try {
    created = await client.create<NetworkAllocationObject>(NETWORK_ALLOCATIONS, undefined, object);
  } catch (error) {
    throw apiError(`creating a NetworkAllocation from ${request.pool}`, error);
  }
  const name = created.metadata.name;
  let decided: NetworkAllocationObject;
  try {
    decided = await waitFor<NetworkAllocationObject>(
      client,
      NETWORK_ALLOCATIONS,
      name,
      isAllocationDecided,
      `NetworkAllocation ${name}`,
      options,
    );
  } catch (error) {
    await release(client, name).catch(() => undefined);
    throw error;
  }
  if (decided.status?.phase === "Allocated") return decided;
  await release(client, name).catch(() => undefined);
  const code = decided.status?.reason;
  const known = code === "pool-exhausted" || code === "pool-not-found" || code === "not-delegable" || code === "invalid-argument";
  throw new NetworkRegistryError(known ? code : "api-error", decided.status?.message ?? `NetworkAllocation ${name} failed`);
}

/** Delete an allocation object: its block goes back to the pool. */
export async function release(client: KubeClient, name: string): Promise<void> {
  try {
    await client.delete(NETWORK_ALLOCATIONS, undefined, name);
  } catch (error) {
    if (!isNotFound(error)) throw apiError(`deleting NetworkAllocation ${name}`, error);
  }
}

/** Who owns an address or prefix, answered from informer caches of the decided claims and allocations. */
export interface WhoisCache {
  whois(query: string): WhoisResult;
  close(): Promise<void>;
}

/** Start informers on claims and allocations; resolves once both have synced. */
export async function createWhoisCache(client: KubeClient): Promise<WhoisCache> {
  const claims = new Informer(client, NETWORK_CLAIMS);
  const allocations = new Informer(client, NETWORK_ALLOCATIONS);
  let dirty = true;
  let registry: ReturnType<typeof loadRecordedDecisions>["registry"] | undefined;
  const markDirty = { add: () => (dirty = true), update: () => (dirty = true), delete: () => (dirty = true) };
  claims.addEventHandler(markDirty);
  allocations.addEventHandler(markDirty);
  claims.start();
  allocations.start();
  await Promise.all([claims.waitForSync(), allocations.waitForSync()]);
  return {
    whois(query) {
      if (dirty || registry === undefined) {
        dirty = false;
        const claimOrder = decisionOrder(claims.cache.list() as NetworkClaimObject[]).ordered;
        const allocationOrder = decisionOrder(allocations.cache.list() as NetworkAllocationObject[]).ordered;
        registry = loadRecordedDecisions(claimOrder, allocationOrder).registry;
      }
      return registry.whois(query);
    },
    async close() {
      await Promise.all([claims.stop(), allocations.stop()]);
    },
  };
}

/** A running {@link watch}. */
export interface DecisionWatch {
  close(): Promise<void>;
}

/**
 * Calls `onDecision` with each claim whenever the arbiter decides it (a new claim, a changed spec
 * or a changed outcome), starting with the decided claims that exist now.
 */
export async function watch(client: KubeClient, onDecision: (claim: NetworkClaimObject) => void): Promise<DecisionWatch> {
  const informer = new Informer(client, NETWORK_CLAIMS);
  const seen = new Map<string, string>();
  const report = (object: KubeObject) => {
    const claimObject = object as NetworkClaimObject;
    if (!isClaimDecided(claimObject)) return;
    const key = JSON.stringify([claimObject.metadata.generation, claimObject.status]);
    if (seen.get(claimObject.metadata.name) === key) return;
    seen.set(claimObject.metadata.name, key);
    onDecision(claimObject);
  };
  informer.addEventHandler({
    add: report,
    update: (_old, object) => report(object),
    delete: (object) => seen.delete(object.metadata?.name ?? ""),
  });
  informer.start();
  await informer.waitForSync();
  return { close: () => informer.stop() };
}
