import type { ProxyEndpoint } from "./service-endpoints.js";

/** kube-proxy's default ClientIP affinity timeout (`sessionAffinityConfig.clientIP.timeoutSeconds`): 3 hours. */
export const DEFAULT_AFFINITY_SECONDS = 10_800;

/**
 * ClientIP session affinity, as kube-proxy's `recent` lists: per service port and client IP, the
 * endpoint last chosen, kept while the client comes back within the timeout (each new connection
 * restarts it) and the endpoint is still a candidate.
 */
export class AffinityTable {
  readonly #entries = new Map<string, { endpoint: string; until: number }>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  choose(
    servicePort: string,
    clientIP: string,
    timeoutSeconds: number,
    candidates: readonly ProxyEndpoint[],
    random: () => number = Math.random,
  ): ProxyEndpoint | undefined {
    if (candidates.length === 0) return undefined;
    const key = `${servicePort}|${clientIP}`;
    const now = this.#now();
    const held = this.#entries.get(key);
    let endpoint = held !== undefined && held.until > now ? candidates.find((e) => `${e.ip}:${e.port}` === held.endpoint) : undefined;
    endpoint ??= candidates[Math.floor(random() * candidates.length)]!;
    this.#entries.set(key, { endpoint: `${endpoint.ip}:${endpoint.port}`, until: now + timeoutSeconds * 1000 });
    return endpoint;
  }

  /** Forgets the entries of service ports no longer served with affinity. */
  retain(servicePorts: ReadonlySet<string>): void {
    for (const key of this.#entries.keys()) if (!servicePorts.has(key.slice(0, key.lastIndexOf("|")))) this.#entries.delete(key);
  }
}
