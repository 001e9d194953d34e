import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

/** Labels kube-apiserver puts on `apiserver_request_total` and `apiserver_request_duration_seconds`. */
export interface RequestLabels {
  verb: string;
  dry_run: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  scope: string;
  component: string;
}

/** kube-apiserver's request duration buckets (`apiserver_request_duration_seconds`). */
const DURATION_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

export interface ApiMetricsOptions {
  /** Counts stored objects per resource at scrape time (`apiserver_storage_objects`). */
  countObjects?: () => Promise<Array<{ resource: string; count: number }>>;
  /** Also export Node process metrics (CPU, memory, event loop). Default true. */
  processMetrics?: boolean;
}

/**
 * The Prometheus metrics of the server, named as upstream so dashboards and alerts written for
 * kube-apiserver read them unchanged. Each control plane has its own registry.
 */
export class ApiMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<keyof RequestLabels | "code">;
  readonly duration: Histogram<keyof RequestLabels>;
  readonly inflight: Gauge<"request_kind">;
  readonly watchers: Gauge<"group" | "version" | "kind">;
  /** Requests in flight by kind, counted by the max-in-flight filter and read into `inflight` when scraped. */
  readonly inflightRequests: Record<"readOnly" | "mutating", number> = { readOnly: 0, mutating: 0 };

  constructor(options: ApiMetricsOptions = {}) {
    const registers = [this.registry];
    const counted = this.#children;
    this.requests = new Counter({
      name: "apiserver_request_total",
      help: "Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.",
      labelNames: ["verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component", "code"],
      registers,
      collect() {
        for (const child of counted.values()) {
          if (child.uncounted === 0) continue;
          child.count.inc(child.uncounted);
          child.uncounted = 0;
        }
      },
    });
    this.duration = new Histogram({
      name: "apiserver_request_duration_seconds",
      help: "Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.",
      labelNames: ["verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component"],
      buckets: DURATION_BUCKETS,
      registers,
    });
    const inflightRequests = this.inflightRequests;
    this.inflight = new Gauge({
      name: "apiserver_current_inflight_requests",
      help: "Maximal number of currently used inflight request limit of this apiserver per request kind in last second.",
      labelNames: ["request_kind"],
      registers,
      collect() {
        this.set({ request_kind: "readOnly" }, inflightRequests.readOnly);
        this.set({ request_kind: "mutating" }, inflightRequests.mutating);
      },
    });
    this.watchers = new Gauge({
      name: "apiserver_registered_watchers",
      help: "Number of currently registered watchers for a given resources",
      labelNames: ["group", "version", "kind"],
      registers,
    });
    const countObjects = options.countObjects;
    new Gauge({
      name: "apiserver_storage_objects",
      help: "Number of stored objects at the time of last check split by kind.",
      labelNames: ["resource"],
      registers,
      async collect() {
        if (!countObjects) return;
        this.reset();
        for (const { resource, count } of await countObjects()) this.set({ resource }, count);
      },
    });
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  /**
   * Label children by a joined key: prom-client hashes a labels object on every call otherwise.
   * Requests are counted in plain numbers and added to `requests` when it is read (a scrape).
   */
  readonly #children = new Map<
    string,
    { count: { inc(value: number): void }; uncounted: number; time: { observe(value: number): void } }
  >();

  /** Records one finished request. Watches are counted when they end, like upstream. */
  observe(labels: RequestLabels, code: number, seconds: number): void {
    const key = `${labels.verb}|${labels.dry_run}|${labels.group}|${labels.version}|${labels.resource}|${labels.subresource}|${labels.scope}|${labels.component}|${code}`;
    let child = this.#children.get(key);
    if (child === undefined) {
      child = { count: this.requests.labels({ ...labels, code: String(code) }), uncounted: 0, time: this.duration.labels(labels) };
      this.#children.set(key, child);
    }
    child.uncounted++;
    child.time.observe(seconds);
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
