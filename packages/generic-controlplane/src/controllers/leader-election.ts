import type { Registry } from "prom-client";
import type { KubeObject } from "../api/types.js";
import type { Logger } from "../server/logger.js";
import { isConflict, isNotFound, type KubeClient, type ResourceRef } from "./client.js";
import { WorkqueueMetrics } from "./metrics.js";

export const LEASES: ResourceRef = { group: "coordination.k8s.io", version: "v1", resource: "leases", namespaced: true };

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

interface Lease extends KubeObject {
  spec?: LeaseSpec;
}

export interface LeaderElectionOptions {
  client: KubeClient;
  /** The Lease: namespace and name. */
  namespace: string;
  name: string;
  /** This candidate, unique among candidates (e.g. `hostname_uuid`). */
  identity: string;
  /** How long non-leaders wait after the last observed change before taking over (default 15 s). */
  leaseDurationMs?: number;
  /** How long the leader keeps trying to renew before giving up leadership (default 10 s). */
  renewDeadlineMs?: number;
  /** Interval between attempts (default 2 s). */
  retryPeriodMs?: number;
  /** Empty the holder when stopped while leading, so another candidate takes over at once (default true). */
  releaseOnCancel?: boolean;
  /** Runs while leading; `signal` aborts when leadership ends. */
  onStartedLeading(signal: AbortSignal): void | Promise<void>;
  /** Called once leadership ends (lost or released). */
  onStoppedLeading?(): void;
  /** Called when the observed leader changes (including to this candidate). */
  onNewLeader?(identity: string): void;
  /** Reports `leader_election_master_status{name}`. */
  registry?: Registry;
  logger?: Logger;
  clock?: () => number;
}

/** RFC 3339 with microseconds, the wire form of `metav1.MicroTime`. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/**
 * Lease-based leader election after client-go's `leaderelection`: candidates race to write the
 * Lease with optimistic concurrency on its resourceVersion; a holder that stops renewing loses
 * it `leaseDuration` after the last change anyone observed (measured on the observer's clock, so
 * clocks need not agree).
 */
export class LeaderElector {
  readonly #o: Required<Pick<LeaderElectionOptions, "leaseDurationMs" | "renewDeadlineMs" | "retryPeriodMs" | "releaseOnCancel">> &
    LeaderElectionOptions;
  #observed: Lease | undefined;
  #observedRaw = "";
  #observedTime = 0;
  #leader = "";
  #leading = false;
  /** The other holder last logged, so waiting candidates log each new holder once. */
  #reportedHolder = "";

  constructor(options: LeaderElectionOptions) {
    this.#o = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, releaseOnCancel: true, ...options };
    if (this.#o.leaseDurationMs <= this.#o.renewDeadlineMs) throw new Error("leaseDuration must be greater than renewDeadline");
    if (this.#o.renewDeadlineMs <= this.#o.retryPeriodMs * 1.2) throw new Error("renewDeadline must be greater than retryPeriod*1.2");
  }

  /** Whether this candidate currently holds the lease. */
  get isLeader(): boolean {
    return this.#leading;
  }

  /** The holder last observed. */
  get leader(): string {
    return this.#leader;
  }

  #now(): number {
    return this.#o.clock?.() ?? Date.now();
  }

  /**
   * Campaigns until `signal` aborts: acquires, runs `onStartedLeading`, renews; when renewal fails
   * past the deadline, leadership ends and the campaign starts over. Resolves after `signal`
   * aborts and the lease is released.
   */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      if (!(await this.#acquire(signal))) break;
      const leading = new AbortController();
      const abortLeading = () => leading.abort();
      signal.addEventListener("abort", abortLeading, { once: true });
      this.#setLeading(true);
      const work = Promise.resolve()
        .then(() => this.#o.onStartedLeading(leading.signal))
        .catch((error: unknown) =>
          this.#o.logger?.({ level: "error", msg: "leader work failed", lease: this.#leaseName(), error: String(error) }),
        );
      await this.#renew(signal);
      leading.abort();
      signal.removeEventListener("abort", abortLeading);
      await work;
      if (signal.aborted && this.#o.releaseOnCancel) await this.#release();
      this.#setLeading(false);
      this.#o.onStoppedLeading?.();
    }
  }

  #setLeading(leading: boolean): void {
    this.#leading = leading;
    if (this.#o.registry !== undefined) WorkqueueMetrics.for(this.#o.registry).leaderStatus.set({ name: this.#o.name }, leading ? 1 : 0);
    this.#o.logger?.({ msg: leading ? "became leader" : "stopped leading", lease: this.#leaseName(), identity: this.#o.identity });
  }

  #leaseName(): string {
    return `${this.#o.namespace}/${this.#o.name}`;
  }

  async #acquire(signal: AbortSignal): Promise<boolean> {
    this.#o.logger?.({ msg: "attempting to acquire leader lease", lease: this.#leaseName(), identity: this.#o.identity });
    while (!signal.aborted) {
      if (await this.#attempt(this.#o.renewDeadlineMs)) return true;
      await sleep(this.#o.retryPeriodMs * (1 + Math.random() * 1.2), signal);
    }
    return false;
  }

  /** Renews every retry period; returns when the deadline passes without a renewal, or on abort. */
  async #renew(signal: AbortSignal): Promise<void> {
    let lastRenew = this.#now();
    while (!signal.aborted) {
      await sleep(this.#o.retryPeriodMs, signal);
      if (signal.aborted) return;
      // An attempt may not outlast the renew deadline (client-go renews under a context with that timeout).
      if (await this.#attempt(Math.max(1, this.#o.renewDeadlineMs - (this.#now() - lastRenew)))) {
        lastRenew = this.#now();
        continue;
      }
      if (this.#now() - lastRenew >= this.#o.renewDeadlineMs) {
        this.#o.logger?.({ level: "warn", msg: "failed to renew lease before the deadline", lease: this.#leaseName() });
        return;
      }
    }
  }

  /** One try, its requests aborted after `timeoutMs`. */
  async #attempt(timeoutMs: number): Promise<boolean> {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    try {
      return await this.#tryAcquireOrRenew(abort.signal);
    } finally {
      clearTimeout(timer);
    }
  }

  async #tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const { client, namespace, name, identity } = this.#o;
    const now = this.#now();
    const record: LeaseSpec = {
      holderIdentity: identity,
      leaseDurationSeconds: Math.ceil(this.#o.leaseDurationMs / 1000),
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    };
    let current: Lease;
    try {
      current = await client.get<Lease>(LEASES, namespace, name, signal);
    } catch (error) {
      if (!isNotFound(error)) {
        this.#o.logger?.({ level: "warn", msg: "error retrieving lease", lease: this.#leaseName(), error: String(error) });
        return false;
      }
      try {
        const created = await client.create<Lease>(
          LEASES,
          namespace,
          { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name, namespace }, spec: record },
          signal,
        );
        this.#observe(created, now);
        return true;
      } catch (createError) {
        this.#o.logger?.({ level: "warn", msg: "error creating lease", lease: this.#leaseName(), error: String(createError) });
        return false;
      }
    }
    const spec = current.spec ?? {};
    const raw = JSON.stringify(spec);
    if (raw !== this.#observedRaw) this.#observe(current, now);
    const holder = spec.holderIdentity ?? "";
    const durationMs = (spec.leaseDurationSeconds ?? 0) * 1000;
    const heldByMe = holder === identity;
    if (holder !== "" && !heldByMe && this.#observedTime + durationMs > now) {
      if (this.#leader !== this.#reportedHolder) {
        this.#reportedHolder = this.#leader;
        this.#o.logger?.({ msg: "lock is held by another candidate and has not yet expired", lease: this.#leaseName(), holder });
      }
      return false;
    }
    if (heldByMe) {
      record.acquireTime = spec.acquireTime ?? microTime(now);
      record.leaseTransitions = spec.leaseTransitions ?? 0;
    } else {
      record.leaseTransitions = (spec.leaseTransitions ?? 0) + 1;
    }
    try {
      const updated = await client.update<Lease>(LEASES, namespace, { ...current, spec: { ...spec, ...record } }, undefined, signal);
      this.#observe(updated, now);
      return true;
    } catch (error) {
      if (!isConflict(error))
        this.#o.logger?.({ level: "warn", msg: "error updating lease", lease: this.#leaseName(), error: String(error) });
      return false;
    }
  }

  #observe(lease: Lease, now: number): void {
    this.#observed = lease;
    this.#observedRaw = JSON.stringify(lease.spec ?? {});
    this.#observedTime = now;
    const holder = lease.spec?.holderIdentity ?? "";
    if (holder !== this.#leader) {
      this.#leader = holder;
      if (holder !== "") this.#o.onNewLeader?.(holder);
    }
  }

  /** Gives the lease up (client-go's `release`): no holder, a one-second duration. */
  async #release(): Promise<void> {
    const lease = this.#observed;
    if (lease === undefined || lease.spec?.holderIdentity !== this.#o.identity) return;
    const now = microTime(this.#now());
    // Shutdown must not hang on an unresponsive server: the release gets the renew deadline too.
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), this.#o.renewDeadlineMs);
    try {
      const released = await this.#o.client.update<Lease>(
        LEASES,
        this.#o.namespace,
        {
          ...lease,
          spec: { leaseDurationSeconds: 1, acquireTime: now, renewTime: now, leaseTransitions: lease.spec?.leaseTransitions ?? 0 },
        },
        undefined,
        abort.signal,
      );
      this.#observe(released, this.#now());
      this.#o.logger?.({ msg: "released leader lease", lease: this.#leaseName() });
    } catch (error) {
      this.#o.logger?.({ level: "warn", msg: "failed to release lease", lease: this.#leaseName(), error: String(error) });
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Waits `ms`, or less if `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
