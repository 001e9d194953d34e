import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Logger } from "@kubekit/generic-controlplane";
import {
  EventRecorder,
  Informer,
  KubeClient,
  LeaderElector,
  PATCH_MERGE,
  WorkQueue,
  isConflict,
  isNotFound,
  runWorkers,
  serveControllerEndpoints,
  type ClientConfig,
  type ControllerEndpoints,
  type ControllerLeaderElection,
} from "@kubekit/generic-controlplane/controllers";
import type { NetworkRegistryOptions } from "../registry.js";
import { NETWORK_CLAIM_KIND } from "../types.js";
import {
  ARBITER_NAME,
  CLAIM_FINALIZER,
  NETWORK_ALLOCATIONS,
  NETWORK_CLAIMS,
  type NetworkAllocationObject,
  type NetworkClaimObject,
} from "./api.js";
import { ArbiterMetrics } from "./arbiter-metrics.js";
import { Decider, type ClaimDecision, type DecisionPlan } from "./arbiter-pass.js";
import { BackgroundEvents } from "./background-events.js";
import { runBounded } from "./bounded.js";
import { LeaseFence } from "./lease-fence.js";
import { STALE_TERM_REFUSAL } from "./manifests.js";
import { compareResourceVersion } from "./order.js";

/** The arbiter's Lease and timings (default Lease `kube-system/kana-arbiter`), as the controller manager's. */
export type ArbiterLeaderElection = ControllerLeaderElection;

export interface ArbiterOptions {
  /** The API server: a client config (e.g. from `configFromKubeconfig`), a URL, or a client. */
  config: ClientConfig | string | KubeClient;
  /** Leader election through a Lease (default on); `false` runs without (one instance only). */
  leaderElection?: ArbiterLeaderElection | false;
  /** Serve Prometheus metrics on this port (0: any free port); default: not served. */
  metricsPort?: number;
  metricsHost?: string;
  /** Options of the pure registry (special-purpose policy, well-known names). */
  registry?: NetworkRegistryOptions;
  logger?: Logger;
}

export interface Arbiter {
  readonly isLeader: boolean;
  /** Where `/metrics` is served, when `metricsPort` was given. */
  readonly metricsUrl: string | undefined;
  readonly metrics: ArbiterMetrics;
  /** Stops deciding, releases the Lease and closes the metrics server. */
  stop(): Promise<void>;
}

const ALL = "all";
/** Status writes in flight at once: the API server handles them in parallel, each waits for its round trip. */
const WRITES_IN_FLIGHT = 24;
/** Writes per pass; the rest go to the next pass. */
const WRITES_PER_PASS = 1_000;
/** Event sends in flight at once (client-go's recorder sends one at a time), and waiting at most (its broadcaster queues 1,000). */
const EVENTS_IN_FLIGHT = 1;
const EVENTS_QUEUED = 1_000;
/** The elector's default retry period: how long one look at the Lease is trusted before a write. */
const DEFAULT_RETRY_PERIOD_MS = 2_000;

interface FinalizerOutcome {
  /** Claims that got the finalizer in this pass, as the server returned them. */
  patched: Map<string, NetworkClaimObject>;
  /** Claims that could not be given it: nothing depending on them is recorded in this pass. */
  unheld: Set<string>;
}

/**
 * Runs the arbiter: while it holds the Lease it decides every NetworkClaim and NetworkAllocation
 * (see {@link planDecisions}), writes their status, emits `ClaimAllocated` / `ClaimConflict`
 * Events and manages the claims' finalizer. Resolves once started (not once leading).
 */
export async function runArbiter(options: ArbiterOptions): Promise<Arbiter> {
  const client = options.config instanceof KubeClient ? options.config : new KubeClient(options.config);
  const logger: Logger = options.logger ?? (() => undefined);
  const metrics = new ArbiterMetrics();
  let served: ControllerEndpoints | undefined;
  if (options.metricsPort !== undefined)
    served = await serveControllerEndpoints({
      registry: metrics.registry,
      port: options.metricsPort,
      bindAddress: options.metricsHost ?? "127.0.0.1",
    });
  const stop = new AbortController();
  let elector: LeaderElector | undefined;
  let running: Promise<void>;
  if (options.leaderElection === false) {
    running = decideWhileLeading(client, metrics, options.registry ?? {}, logger, stop.signal, undefined);
  } else {
    const election = options.leaderElection ?? {};
    const namespace = election.namespace ?? "kube-system";
    const name = election.name ?? ARBITER_NAME;
    const identity = election.identity ?? `${hostname()}_${randomUUID()}`;
    const freshMs = election.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS;
    const lead = (signal: AbortSignal) =>
      decideWhileLeading(
        client,
        metrics,
        options.registry ?? {},
        logger,
        signal,
        new LeaseFence({ client, namespace, name, identity, freshMs }),
        namespace === "kube-system" && name === ARBITER_NAME,
      );
    elector = new LeaderElector({
      client,
      namespace,
      name,
      identity,
      ...(election.leaseDurationMs !== undefined ? { leaseDurationMs: election.leaseDurationMs } : {}),
      ...(election.renewDeadlineMs !== undefined ? { renewDeadlineMs: election.renewDeadlineMs } : {}),
      ...(election.retryPeriodMs !== undefined ? { retryPeriodMs: election.retryPeriodMs } : {}),
      registry: metrics.registry,
      logger,
      onStartedLeading: lead,
    });
    running = elector.run(stop.signal);
  }
  return {
    get isLeader() {
      return elector === undefined ? !stop.signal.aborted : elector.isLeader;
    },
    metricsUrl: served === undefined ? undefined : `${served.url}/metrics`,
    metrics,
    async stop() {
      stop.abort();
      await running;
      served?.close();
      if (!(options.config instanceof KubeClient)) client.close();
    },
  };
}

/** One leadership term: fresh caches, one worker, every change re-runs the whole pass. */
async function decideWhileLeading(
  client: KubeClient,
  metrics: ArbiterMetrics,
  registryOptions: NetworkRegistryOptions,
  logger: Logger,
  signal: AbortSignal,
  fence: LeaseFence | undefined,
  /** Whether the Lease is the one the installed policy fences status writes by (kube-system/kana-arbiter). */
  stampTerm = false,
): Promise<void> {
  const claims = new Informer(client, NETWORK_CLAIMS, { logger, initialBackoffMs: 100, maxBackoffMs: 2_000 });
  const allocations = new Informer(client, NETWORK_ALLOCATIONS, { logger, initialBackoffMs: 100, maxBackoffMs: 2_000 });
  const queue = new WorkQueue({ name: ARBITER_NAME, registry: metrics.registry });
  const enqueue = { add: () => queue.add(ALL), update: () => queue.add(ALL), delete: () => queue.add(ALL) };
  claims.addEventHandler(enqueue);
  allocations.addEventHandler(enqueue);
  // Repeats are counted on the Event written first (count, lastTimestamp), as client-go records them.
  const events = new EventRecorder(client, ARBITER_NAME, logger, { correlate: true });
  let dropped = 0;
  const eventSender = new BackgroundEvents({ inFlight: EVENTS_IN_FLIGHT, maxQueued: EVENTS_QUEUED, onDropped: () => dropped++ });
  const sendEvent = (send: () => Promise<void>) => eventSender.add(send);
  const decider = new Decider(registryOptions);
  /** Claims whose latest write the server refused, with the reported message. */
  const failedWrites = new Map<string, string>();
  /** The resourceVersion of each object this term last wrote, until the cache has caught up with it. */
  const written = new Map<string, string>();
  const onAbort = () => queue.shutDown();
  signal.addEventListener("abort", onAbort, { once: true });
  claims.start();
  allocations.start();
  try {
    await Promise.race([
      Promise.all([claims.waitForSync(), allocations.waitForSync()]),
      new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true })),
    ]);
    if (!signal.aborted) {
      queue.add(ALL);
      await runWorkers(queue, 1, () => pass(), logger);
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    queue.shutDown();
    await Promise.all([claims.stop(), allocations.stop(), eventSender.stop()]);
    if (dropped > 0) logger({ level: "warn", msg: "Events dropped: more were waiting to be sent than the queue holds", dropped });
  }

  /** Whether the caches hold every write of this term (else the pass waits for the watch to deliver them). */
  function cachesCaughtUp(claimObjects: readonly NetworkClaimObject[], allocationObjects: readonly NetworkAllocationObject[]): boolean {
    const seen = new Map<string, string>();
    for (const o of claimObjects) seen.set(`claim/${o.metadata.name}`, o.metadata.resourceVersion ?? "");
    for (const o of allocationObjects) seen.set(`allocation/${o.metadata.name}`, o.metadata.resourceVersion ?? "");
    let caughtUp = true;
    for (const [key, version] of written) {
      const cached = seen.get(key);
      if (cached === undefined || compareResourceVersion(cached, version) >= 0) written.delete(key);
      else caughtUp = false;
    }
    return caughtUp;
  }

  /**
   * The status as this term writes it: stamped with the term, which the API server checks
   * against the Lease, so a write still in flight when the term ends cannot land after the next
   * leader's (without leader election there is no term, and nothing is stamped).
   */
  function stamped<S extends { term?: number }>(status: S): S {
    const { term: _recorded, ...rest } = status;
    const term = stampTerm ? fence?.term : undefined;
    return (term === undefined ? rest : { ...rest, term }) as S;
  }

  /** Whether the server refused a write because this term is over; if so, the term writes nothing more. */
  function termOver(error: unknown): boolean {
    if (!(error instanceof Error) || !error.message.includes(STALE_TERM_REFUSAL)) return false;
    logger({
      level: "warn",
      msg: "a write of this term was refused: another instance leads; this term writes nothing more",
      error: error.message,
    });
    queue.shutDown();
    return true;
  }

  /** Whether this term may still write: not stopped, and (with leader election) the Lease is still ours. */
  async function mayWrite(): Promise<boolean> {
    if (signal.aborted) return false;
    if (fence === undefined || (await fence.holds())) return true;
    logger({ level: "warn", msg: "the Lease is held by another instance; this term writes nothing more", lease: ARBITER_NAME });
    queue.shutDown();
    return false;
  }

  async function pass(): Promise<void> {
    if (signal.aborted) return;
    const claimObjects = claims.cache.list() as NetworkClaimObject[];
    const allocationObjects = allocations.cache.list() as NetworkAllocationObject[];
    if (!cachesCaughtUp(claimObjects, allocationObjects)) return;
    const started = performance.now();
    const plan = await decider.planInSlices(claimObjects, allocationObjects);
    if (signal.aborted) return;
    const planMs = performance.now() - started;
    metrics.observe(plan.registry, plan.exhaustedPools);
    const finalizers = await addFinalizers(plan);
    if (finalizers === undefined) return;
    const writes = plannedWrites(plan, finalizers);
    // A pass writes a bounded batch and the next pass (after the watch has caught up) the rest,
    // so no pass outlives a small part of the Lease's renew deadline, however much is pending.
    if (writes.length > WRITES_PER_PASS) queue.add(ALL);
    const outcome = await runBounded(writes.slice(0, WRITES_PER_PASS), WRITES_IN_FLIGHT, async (write) => {
      if (!(await mayWrite())) return false;
      await write();
      return true;
    });
    if (writes.length > 0)
      logger({
        msg: "decision pass",
        objects: claimObjects.length + allocationObjects.length,
        planMs: Math.round(planMs),
        writes: Math.min(writes.length, WRITES_PER_PASS),
        pending: Math.max(0, writes.length - WRITES_PER_PASS),
        writeMs: Math.round(performance.now() - started - planMs),
      });
    // A write that failed for a reason other than a refusal (reported on its claim) is retried,
    // rate limited, once every other write of the batch has been made.
    if (outcome.failed.length > 0) throw outcome.failed[0];
  }

  /**
   * Puts the finalizer on every claim something is now delegated or allocated from, before any
   * decision depending on it is recorded: a claim nothing depends on needs none, and is not
   * written for it. Returns the claims as patched, and the claims that could not be held (deleted
   * or changed meanwhile: what depends on them waits for the next pass); undefined once this
   * term may write no more.
   */
  async function addFinalizers(plan: DecisionPlan): Promise<FinalizerOutcome | undefined> {
    const patched = new Map<string, NetworkClaimObject>();
    const unheld = new Set<string>();
    const missing: NetworkClaimObject[] = [];
    for (const name of plan.dependedOn) {
      const object = claims.cache.get(name) as NetworkClaimObject | undefined;
      if (object === undefined) unheld.add(name);
      else if (!(object.metadata.finalizers ?? []).includes(CLAIM_FINALIZER)) missing.push(object);
    }
    const outcome = await runBounded(missing, WRITES_IN_FLIGHT, async (object) => {
      if (!(await mayWrite())) return false;
      const name = object.metadata.name;
      try {
        const updated = await client.patch<NetworkClaimObject>(
          NETWORK_CLAIMS,
          undefined,
          name,
          {
            metadata: {
              resourceVersion: object.metadata.resourceVersion,
              finalizers: [...(object.metadata.finalizers ?? []), CLAIM_FINALIZER],
            },
          },
          PATCH_MERGE,
        );
        written.set(`claim/${name}`, updated.metadata.resourceVersion ?? "");
        patched.set(name, updated);
      } catch (error) {
        if (!isNotFound(error) && !isConflict(error)) throw error;
        unheld.add(name);
      }
      return true;
    });
    if (outcome.stopped) return undefined;
    if (outcome.failed.length > 0) throw outcome.failed[0];
    return { patched, unheld };
  }

  /** The writes a plan needs, in decision order: claims, then allocations, then finalizers to remove. */
  function plannedWrites(plan: DecisionPlan, finalizers: FinalizerOutcome): (() => Promise<void>)[] {
    const writes: (() => Promise<void>)[] = [];
    const held = (parent: string | undefined) => parent === undefined || !finalizers.unheld.has(parent);
    for (const decision of plan.claims) {
      if (!decision.changed) continue;
      const name = decision.object.metadata.name;
      if (!(decision.status.addressSpace ?? []).every((r) => r.status !== "allocated" || held(r.parent?.claim))) continue;
      writes.push(async () => {
        try {
          await writeClaim({ ...decision, object: finalizers.patched.get(name) ?? decision.object });
          failedWrites.delete(name);
        } catch (error) {
          if (isNotFound(error) || isConflict(error) || termOver(error)) return; // deleted or changed meanwhile: the watch brings the news
          // A write the server refuses (a policy that does not name this arbiter's user) is
          // reported on its claim: one claim never holds up the decisions of the others.
          await reportFailedWrite(decision.object, error);
        }
      });
    }
    for (const decision of plan.allocations) {
      if (!decision.changed || !held(decision.status.parent?.claim)) continue;
      writes.push(async () => {
        if (decision.status.phase === "Failed" && decision.object.status?.reason !== decision.status.reason)
          metrics.failed(decision.status.reason ?? "unknown");
        logger({ msg: "writing status", resource: "networkallocations", name: decision.object.metadata.name });
        try {
          const updated = await client.update(
            NETWORK_ALLOCATIONS,
            undefined,
            { ...decision.object, status: stamped(decision.status) },
            "status",
          );
          written.set(`allocation/${decision.object.metadata.name}`, updated.metadata?.resourceVersion ?? "");
          metrics.wrote("allocation");
        } catch (error) {
          // Deleted meanwhile: the next pass no longer sees it.
          if (!isNotFound(error) && !termOver(error)) throw error;
        }
      });
    }
    for (const name of plan.releasable) {
      const object = claims.cache.get(name) as NetworkClaimObject | undefined;
      const finalizers = object?.metadata.finalizers ?? [];
      if (object === undefined || !finalizers.includes(CLAIM_FINALIZER)) continue;
      writes.push(async () => {
        try {
          await client.patch(
            NETWORK_CLAIMS,
            undefined,
            name,
            {
              metadata: { resourceVersion: object.metadata.resourceVersion, finalizers: finalizers.filter((f) => f !== CLAIM_FINALIZER) },
            },
            PATCH_MERGE,
          );
        } catch (error) {
          if (!isNotFound(error) && !isConflict(error)) throw error;
        }
      });
    }
    return writes;
  }

  async function writeClaim(decision: ClaimDecision): Promise<void> {
    logger({ msg: "writing status", resource: "networkclaims", name: decision.object.metadata.name });
    const updated = await client.update<NetworkClaimObject>(
      NETWORK_CLAIMS,
      undefined,
      { ...decision.object, status: stamped(decision.status) },
      "status",
    );
    written.set(`claim/${updated.metadata.name}`, updated.metadata.resourceVersion ?? "");
    metrics.wrote("claim");
    announce(decision);
  }

  /** A Warning Event on the claim, once per claim and message until a write of it succeeds. */
  async function reportFailedWrite(object: NetworkClaimObject, error: unknown): Promise<void> {
    const name = object.metadata.name;
    const message = `the arbiter could not record its decision on NetworkClaim ${name}: ${error instanceof Error ? error.message : String(error)}`;
    logger({ level: "error", msg: "could not write claim", name, error: message });
    if (failedWrites.get(name) === message) return;
    failedWrites.set(name, message);
    metrics.failedWrite();
    const involved = {
      apiVersion: object.apiVersion,
      kind: NETWORK_CLAIM_KIND,
      name,
      ...(object.metadata.uid !== undefined ? { uid: object.metadata.uid } : {}),
    };
    await events.event(involved, "Warning", "StatusWriteFailed", message);
  }

  /** Queues the Events a newly written claim status calls for (sent without holding up the writes). */
  function announce(decision: ClaimDecision): void {
    const { object, status } = decision;
    const involved = {
      apiVersion: object.apiVersion,
      kind: NETWORK_CLAIM_KIND,
      name: object.metadata.name,
      ...(object.metadata.uid !== undefined ? { uid: object.metadata.uid } : {}),
    };
    // An outcome is the refusal and what blocks it; a new nearest-free suggestion alone is no news.
    const outcomeOf = (r: { conflict?: { reason: string; claim?: string; prefix?: string; relation?: string } | undefined }) =>
      r.conflict === undefined
        ? undefined
        : `${r.conflict.reason} ${r.conflict.claim ?? ""} ${r.conflict.prefix ?? ""} ${r.conflict.relation ?? ""}`;
    const before = new Map((object.status?.addressSpace ?? []).map((r) => [r.prefix, outcomeOf(r)]));
    const newlyRefused = (status.addressSpace ?? []).filter((r) => r.conflict !== undefined && before.get(r.prefix) !== outcomeOf(r));
    for (const record of newlyRefused) sendEvent(() => events.event(involved, "Warning", "ClaimConflict", record.conflict!.message));
    const decidedBefore = object.status?.phase === "Allocated" && object.status.observedGeneration === status.observedGeneration;
    if (status.phase === "Allocated" && !decidedBefore) {
      sendEvent(() =>
        events.event(
          involved,
          "Normal",
          "ClaimAllocated",
          `granted ${status.allocatedPrefixes ?? "nothing"} (sequence ${status.sequence})`,
        ),
      );
    }
  }
}
