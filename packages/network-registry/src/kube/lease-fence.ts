import { LEASES, type KubeClient } from "@kubekit/generic-controlplane/controllers";

/*
 * A leader that was frozen (SIGSTOP, a long GC pause, a suspended VM) wakes up with writes in
 * flight and timers that say it still leads; its elector notices the lost Lease only at the next
 * renewal. Before each write the arbiter asks this fence, which answers from its last look at the
 * Lease while that is fresh, and otherwise reads the Lease again: once another instance holds it,
 * the term is over and nothing more is written. A look whose answer took long to arrive (the
 * process may have been frozen in between) is not trusted.
 */

export interface LeaseFenceOptions {
  client: KubeClient;
  namespace: string;
  name: string;
  identity: string;
  /** How long a look at the Lease is trusted (the elector's retry period). */
  freshMs: number;
  now?: () => number;
}

export class LeaseFence {
  readonly #o: LeaseFenceOptions;
  #confirmedAt = Number.NEGATIVE_INFINITY;
  #lost = false;
  #term: number | undefined;
  #looking: Promise<void> | undefined;

  constructor(options: LeaseFenceOptions) {
    this.#o = options;
  }

  get lost(): boolean {
    return this.#lost;
  }

  /** The leadership term (the Lease's `leaseTransitions`) this instance holds, once it has looked. */
  get term(): number | undefined {
    return this.#term;
  }

  /** Whether this instance still holds the Lease; false from the first time it does not. */
  async holds(): Promise<boolean> {
    const now = this.#o.now ?? Date.now;
    while (!this.#lost) {
      if (now() - this.#confirmedAt < this.#o.freshMs) return true;
      // Writes in flight at once share one look at the Lease.
      this.#looking ??= this.#look(now).finally(() => (this.#looking = undefined));
      await this.#looking;
    }
    return false;
  }

  async #look(now: () => number): Promise<void> {
    const asked = now();
    const lease = await this.#o.client.get<{ spec?: { holderIdentity?: string; leaseTransitions?: number } }>(
      LEASES,
      this.#o.namespace,
      this.#o.name,
    );
    if (lease.spec?.holderIdentity !== this.#o.identity) {
      this.#lost = true;
      return;
    }
    this.#term ??= lease.spec.leaseTransitions ?? 0;
    if (now() - asked < this.#o.freshMs) this.#confirmedAt = asked;
  }
}
