import { Counter, Gauge, Registry } from "prom-client";
import type { NetworkRegistry } from "../registry.js";

/** The arbiter's Prometheus metrics, recomputed from the registry after every pass. */
export class ArbiterMetrics {
  readonly registry: Registry;
  readonly #allocated: Gauge;
  readonly #size: Gauge;
  readonly #conflicts: Gauge;
  readonly #exhausted: Gauge;
  readonly #failures: Counter;
  readonly #writes: Counter;
  readonly #failedWrites: Counter;

  constructor(registry = new Registry()) {
    this.registry = registry;
    const registers = [registry];
    this.#allocated = new Gauge({
      name: "kana_pool_addresses_allocated",
      help: "Addresses of a granted record handed out as allocations or delegations, per pool and IP family.",
      labelNames: ["pool", "claim", "family"],
      registers,
    });
    this.#size = new Gauge({
      name: "kana_pool_addresses",
      help: "Addresses in a granted record (a pool), per pool and IP family.",
      labelNames: ["pool", "claim", "family"],
      registers,
    });
    this.#conflicts = new Gauge({
      name: "kana_claim_conflicts",
      help: "Claim records currently refused, per conflict reason.",
      labelNames: ["reason"],
      registers,
    });
    this.#exhausted = new Gauge({
      name: "kana_allocations_pending_exhausted",
      help: "Allocation requests waiting because their pool has no free block of the size, per pool.",
      labelNames: ["pool"],
      registers,
    });
    this.#failures = new Counter({
      name: "kana_allocation_failures_total",
      help: "Allocation requests the arbiter could not satisfy, per reason (pool-exhausted is exhaustion).",
      labelNames: ["reason"],
      registers,
    });
    this.#writes = new Counter({
      name: "kana_decisions_total",
      help: "Status writes of the arbiter, per kind.",
      labelNames: ["kind"],
      registers,
    });
    this.#failedWrites = new Counter({
      name: "kana_claim_write_failures_total",
      help: "Claim writes the API server refused (each reported once as a StatusWriteFailed Event).",
      registers,
    });
  }

  /** Pools, conflicts and waiting requests as they stand after a pass. */
  observe(registry: NetworkRegistry, exhaustedPools: readonly string[]): void {
    this.#allocated.reset();
    this.#size.reset();
    this.#conflicts.reset();
    this.#exhausted.reset();
    for (const claim of registry.list()) {
      for (const record of claim.status?.addressSpace ?? []) {
        if (record.conflict !== undefined) this.#conflicts.inc({ reason: record.conflict.reason });
        if (record.status !== "allocated") continue;
        const usage = registry.utilization(record.prefix);
        const labels = { pool: record.prefix, claim: claim.metadata.name, family: record.prefix.includes(":") ? "IPv6" : "IPv4" };
        this.#size.set(labels, Number(usage.size));
        this.#allocated.set(labels, Number(usage.used));
      }
    }
    for (const pool of exhaustedPools) this.#exhausted.inc({ pool });
  }

  failed(reason: string): void {
    this.#failures.inc({ reason });
  }

  failedWrite(): void {
    this.#failedWrites.inc();
  }

  wrote(kind: "claim" | "allocation"): void {
    this.#writes.inc({ kind });
  }
}
