import { noop } from "cockatiel";
import { Etcd3, type IOptions } from "etcd3";
import type * as RPC from "etcd3";
import { DEFAULT_COMPACT_INTERVAL, repeatEvery, type CompactionOptions } from "./compactor.js";
import { compactionRound, FIRST_ROUND, type CompactionRound } from "./etcd-compaction.js";
import {
  badRequest,
  keyExists,
  keyNotFound,
  revisionConflict,
  serviceUnavailable,
  storageClosed,
  tooLargeResourceVersion,
  tooOldResourceVersion,
  unknownError,
} from "../api/errors/index.js";
import { isControlPlaneError } from "../api/errors/control-plane-error.js";
import { EtcdRefused, GatewayUnavailable, RevisionReader } from "./etcd-revision-read.js";
import { EventWindow } from "./event-window.js";
import { withListCache } from "./list-cache.js";
import { directoryPrefix } from "./prefix.js";
import { WatchHub } from "./watch-hub.js";
import type { KeyValue, ListOptions, ListResult, Storage, StorageEvent, StorageWatch, WatchOptions } from "./types.js";

/** Where the etcd cluster is and how to reach it, as kube-apiserver's `--etcd-*` flags say it. */
export interface EtcdStorageOptions extends Pick<CompactionOptions, "compactInterval"> {
  /** Client URLs or `host:port`s of the etcd members, e.g. `["http://127.0.0.1:2379"]`. */
  endpoints: readonly string[];
  /**
   * Where objects live in etcd, kube-apiserver's `--etcd-prefix`. Keys handed to the storage start
   * with `/registry`; that segment is replaced by this prefix. Default `/registry`, so a control
   * plane and kube-apiserver lay keys out alike.
   */
  prefix?: string;
  /** TLS to etcd (`--etcd-cafile`, `--etcd-certfile`, `--etcd-keyfile`): PEM contents. */
  tls?: { ca: Buffer | string; cert?: Buffer | string; key?: Buffer | string };
  /** Deadline of each etcd request in milliseconds (default 10000); a request past it answers 503. */
  requestTimeoutMs?: number;
  /** Deadline of the health check's read (kube-apiserver's `--etcd-healthcheck-timeout`, default 2000). */
  healthCheckTimeoutMs?: number;
  /**
   * Events the watch cache keeps for replaying watches (default 10000): a watch from a revision the
   * cache still holds is served without a request to etcd; an older one gets its own etcd watch.
   */
  watchCacheEvents?: number;
}

/** The watch cache: one etcd watch over every object, its recent events, and the watchers it serves. */
interface WatchCache {
  window: EventWindow;
  watch: EtcdWatch;
}

const REGISTRY = "/registry";
const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
const DEFAULT_HEALTH_TIMEOUT_MS = 2_000;
const DEFAULT_WATCH_CACHE_EVENTS = 10_000;
/** etcd's messages for reads outside the retained history (mvcc.ErrCompacted, mvcc.ErrFutureRev). */
const COMPACTED = "required revision has been compacted";
const FUTURE = "required revision is a future revision";
/** etcd's refusal of a request over its `--max-request-bytes` (rpctypes.ErrRequestTooLarge). */
const TOO_LARGE = "etcdserver: request is too large";

/**
 * A Storage on etcd v3, the engine kube-apiserver uses: objects are JSON values under
 * kube-apiserver's key layout, resourceVersions are etcd revisions, writes are transactions that
 * compare `create_revision`/`mod_revision` (as kube-apiserver's etcd3 store does), and compaction is
 * etcd's own. Several control planes may share one etcd: each sees the others' writes in revision order.
 *
 * Watches under `/registry` go through a watch cache, as kube-apiserver's cacher: one etcd watch
 * (with previous values) feeds every watcher of the process, and a window of recent events replays
 * a watch from a recent revision without asking etcd. A watch from before the window gets an etcd
 * watch of its own, so history etcd still holds stays readable.
 */
export function createEtcdStorage(options: EtcdStorageOptions): Storage {
  // Lists under /registry at resourceVersion 0 or NotOlderThan, and the pages of any list, are served
  // from memory, fed by the watch cache's one etcd watch. A list of the latest state cannot just wait
  // for the cache to reach etcd's revision, as kube-apiserver does: writes under other prefixes move
  // that revision without an event reaching the cache, and etcd 3.4 before 3.4.31 (Debian's) does not
  // order progress notifications after pending events. Instead one range over the listed directory
  // proves it unchanged since the cache's revision, and the cache answers; otherwise etcd does.
  const storage = new EtcdStorage(options);
  const cached = withListCache(storage, {
    root: `${REGISTRY}/`,
    consistentReads: false,
    servesGets: true,
    unchangedSince: (directory, revision, count) => storage.unchangedSince(directory, revision, count),
  });
  // kube-apiserver's compaction (etcd-compaction.ts): the first round an interval after start only
  // records a revision, so a server's restart never takes history from the others' clients.
  let round = FIRST_ROUND;
  const stopCompaction = repeatEvery(
    options.compactInterval ?? DEFAULT_COMPACT_INTERVAL,
    async () => {
      // Through the list cache, so that its snapshots older than the compaction go too.
      round = await storage.compactionRound(round, (revision) => cached.compact(revision));
    },
    { immediately: false },
  );
  const close = cached.close.bind(cached);
  cached.close = () => {
    stopCompaction();
    return close();
  };
  return cached;
}

class EtcdStorage implements Storage {
  private readonly client: Etcd3;
  private readonly prefix: string;
  private readonly requestTimeoutMs: number;
  private readonly healthCheckTimeoutMs: number;
  private readonly watches = new Set<EtcdWatch>();
  private readonly watchCacheEvents: number;
  private readonly hub = new WatchHub();
  /** Reads the current revision through etcd's JSON gateway; undefined once the gateway is found not to serve it. */
  private revisionReader: RevisionReader | undefined;
  private watchCache: Promise<WatchCache> | undefined;
  /** The highest compacted revision seen; compaction only moves it forward. */
  private knownCompacted = 0;
  private closed = false;

  constructor(options: EtcdStorageOptions) {
    if (options.endpoints.length === 0) throw badRequest("etcd storage needs at least one endpoint");
    const prefix = options.prefix ?? REGISTRY;
    if (!prefix.startsWith("/") || prefix.endsWith("/"))
      throw badRequest(`etcd prefix must start with "/" and not end with it, got ${JSON.stringify(prefix)}`);
    this.prefix = prefix;
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.healthCheckTimeoutMs = options.healthCheckTimeoutMs ?? DEFAULT_HEALTH_TIMEOUT_MS;
    this.watchCacheEvents = options.watchCacheEvents ?? DEFAULT_WATCH_CACHE_EVENTS;
    if (!Number.isInteger(this.watchCacheEvents) || this.watchCacheEvents < 1)
      throw badRequest(`watchCacheEvents must be a positive integer, got ${this.watchCacheEvents}`);
    const clientOptions: IOptions = {
      hosts: [...options.endpoints],
      // The client's per-host circuit breaker steers requests to the other members after three
      // failures in a row; with one member there is nowhere else to go, and an open circuit would
      // fail every request for 5 s after a passing hiccup, so requests just go through.
      ...(options.endpoints.length === 1 ? { faultHandling: { host: () => noop } } : {}),
    };
    if (options.tls !== undefined) {
      clientOptions.credentials = {
        rootCertificate: Buffer.from(options.tls.ca),
        ...(options.tls.key === undefined ? {} : { privateKey: Buffer.from(options.tls.key) }),
        ...(options.tls.cert === undefined ? {} : { certChain: Buffer.from(options.tls.cert) }),
      };
    }
    this.client = new Etcd3(clientOptions);
    this.revisionReader = new RevisionReader({
      endpoint: options.endpoints[0]!,
      key: this.toEtcd(`${REGISTRY}/`),
      tls: options.tls,
      timeoutMs: this.requestTimeoutMs,
    });
  }

  async get(key: string, options: { revision?: number } = {}): Promise<KeyValue | undefined> {
    const revision = this.requestedRevision(options.revision);
    const response = await this.call((kv, callOptions) => kv.range({ key: this.toEtcd(key), revision }, callOptions), revision);
    const found = response.kvs[0];
    return found === undefined ? undefined : this.fromEtcd(found);
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    const limit = options.limit ?? 0;
    if (!Number.isInteger(limit) || limit < 0) throw badRequest(`invalid limit ${limit}`);
    const requested = this.requestedRevision(options.revision);
    const directory = directoryPrefix(prefix);
    const start = options.startAfter !== undefined && options.startAfter >= directory ? `${options.startAfter}\0` : directory;
    const response = await this.call(
      (kv, callOptions) =>
        kv.range({ key: this.toEtcd(start), range_end: this.rangeEnd(directory), revision: requested, limit }, callOptions),
      requested,
    );
    const items = response.kvs.map((entry) => this.fromEtcd(entry));
    // etcd counts every key in the range from the page's start, so the rest is exact either way.
    const remaining = Number(response.count) - items.length;
    return { items, revision: requested === 0 ? Number(response.header.revision) : requested, remaining: Math.max(0, remaining) };
  }

  /**
   * etcd's current revision if the keys under `directory` are the `count` keys it held at `revision`: no key under
   * it has a later mod revision (a write or a re-creation would have one), and as many keys are
   * there (so none was deleted). One range: etcd counts the whole range before it drops the keys
   * older than `min_mod_revision`, and sends at most one key.
   */
  async unchangedSince(directory: string, revision: number, count: number): Promise<number | undefined> {
    const response = await this.call((kv, callOptions) =>
      kv.range(
        { key: this.toEtcd(directory), range_end: this.rangeEnd(directory), keys_only: true, min_mod_revision: revision + 1, limit: 1 },
        callOptions,
      ),
    );
    return response.kvs.length === 0 && Number(response.count) === count ? Number(response.header.revision) : undefined;
  }

  async count(prefix: string): Promise<number> {
    const directory = directoryPrefix(prefix);
    const response = await this.call((kv, callOptions) =>
      kv.range({ key: this.toEtcd(directory), range_end: this.rangeEnd(directory), count_only: true }, callOptions),
    );
    return Number(response.count);
  }

  async create(key: string, value: string): Promise<KeyValue> {
    const etcdKey = this.toEtcd(key);
    const response = await this.call((kv, callOptions) =>
      kv.txn(
        {
          compare: [{ key: etcdKey, target: "Create", result: "Equal", create_revision: 0 }],
          success: [{ request_put: { key: etcdKey, value: Buffer.from(value) } }],
        },
        callOptions,
      ),
    );
    if (!response.succeeded) throw keyExists(key);
    const revision = Number(response.header.revision);
    return { key, value, createRevision: revision, modRevision: revision };
  }

  async update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    const etcdKey = this.toEtcd(key);
    const response = await this.call((kv, callOptions) =>
      kv.txn(
        {
          compare: [{ key: etcdKey, target: "Mod", result: "Equal", mod_revision: expectedModRevision }],
          success: [{ request_put: { key: etcdKey, value: Buffer.from(value), prev_kv: true } }],
          failure: [{ request_range: { key: etcdKey } }],
        },
        callOptions,
      ),
    );
    if (!response.succeeded) throw this.casFailure(key, expectedModRevision, response);
    const previous = response.responses[0]?.response_put.prev_kv;
    const revision = Number(response.header.revision);
    return {
      key,
      value,
      createRevision: previous === undefined || previous === null ? revision : Number(previous.create_revision),
      modRevision: revision,
    };
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    const etcdKey = this.toEtcd(key);
    const compare: RPC.ICompare =
      expectedModRevision === undefined
        ? { key: etcdKey, target: "Create", result: "Greater", create_revision: 0 }
        : { key: etcdKey, target: "Mod", result: "Equal", mod_revision: expectedModRevision };
    const response = await this.call((kv, callOptions) =>
      kv.txn(
        {
          compare: [compare],
          success: [{ request_delete_range: { key: etcdKey, prev_kv: true } }],
          failure: [{ request_range: { key: etcdKey } }],
        },
        callOptions,
      ),
    );
    if (!response.succeeded) throw this.casFailure(key, expectedModRevision, response);
    const previous = response.responses[0]?.response_delete_range.prev_kvs[0];
    // Another writer deleted the key between the compare and the delete cannot happen inside one
    // transaction; a missing previous value would mean etcd broke its own contract.
    if (previous === undefined) throw keyNotFound(key);
    return {
      key,
      value: previous.value.toString(),
      createRevision: Number(previous.create_revision),
      modRevision: Number(response.header.revision),
    };
  }

  async watch(prefix: string, options: WatchOptions): Promise<StorageWatch> {
    if (this.closed) throw storageClosed();
    const directory = directoryPrefix(prefix);
    if (directory.startsWith(`${REGISTRY}/`)) {
      const cache = await this.cached();
      if (cache.window.covers(options.afterRevision)) {
        // Compaction this process did or saw is honoured; the window itself outlives etcd's history,
        // as the cacher's does.
        if (options.afterRevision < this.knownCompacted) throw tooOldResourceVersion(options.afterRevision, this.knownCompacted);
        if (options.afterRevision >= cache.window.latest) return this.hub.add(directory, options, [], options.afterRevision);
        return this.hub.addReplaying(
          directory,
          options,
          (after, limit) => cache.window.readPage(directory, after, limit),
          options.afterRevision,
        );
      }
    }
    return this.openWatch(directory, options);
  }

  /** The running watch cache, started on first use and again after its etcd watch failed. */
  private cached(): Promise<WatchCache> {
    if (this.watchCache === undefined) {
      const starting: Promise<WatchCache> = this.startWatchCache(() => {
        if (this.watchCache === starting) this.watchCache = undefined;
      });
      this.watchCache = starting;
      starting.catch(() => {
        if (this.watchCache === starting) this.watchCache = undefined;
      });
    }
    return this.watchCache;
  }

  private async startWatchCache(forget: () => void): Promise<WatchCache> {
    const window = new EventWindow(this.watchCacheEvents, await this.currentRevision());
    const watch = await this.openWatch(`${REGISTRY}/`, {
      afterRevision: window.from,
      onEvents: (events) => {
        window.append(events);
        this.hub.publish(events);
      },
      onError: (error) => {
        // Every watcher it served ends with the error (clients re-watch); the next watch starts a new cache.
        forget();
        this.hub.closeAll(error);
      },
    });
    return { window, watch };
  }

  /** A watch of its own on etcd, replaying etcd's history after `options.afterRevision`. */
  private async openWatch(directory: string, options: WatchOptions): Promise<EtcdWatch> {
    // etcd answers a watch below its compacted revision by cancelling it; checking first gives the
    // caller a rejected promise, as the contract asks, instead of a watch that errors at once.
    const compacted = await this.compactedRevision();
    if (options.afterRevision < compacted) throw tooOldResourceVersion(options.afterRevision, compacted);
    const replayThrough = await this.currentRevision();
    // A watch stream has no deadline: it lives until stopped.
    const stream = await this.client.watchClient.watch().catch(async (error: unknown) => {
      throw await this.translate(error, 0);
    });
    const watch = new EtcdWatch(
      stream,
      options,
      replayThrough,
      (entry) => this.fromEtcd(entry),
      () => this.compactedRevision(),
      () => this.watches.delete(watch),
    );
    this.watches.add(watch);
    await watch.start({
      key: this.toEtcd(directory),
      range_end: this.rangeEnd(directory),
      start_revision: options.afterRevision + 1,
      prev_kv: true,
      progress_notify: true,
    });
    return watch;
  }

  /**
   * A linearizable read of etcd's revision. Through the JSON gateway (see RevisionReader); when the
   * gateway is not served (`--enable-grpc-gateway=false`) from then on, and when its connection
   * failed for this read, through the gRPC client, which also knows the other members.
   */
  async currentRevision(): Promise<number> {
    if (this.closed) throw storageClosed();
    const reader = this.revisionReader;
    if (reader !== undefined) {
      try {
        return await reader.read();
      } catch (error) {
        if (this.closed) throw storageClosed();
        if (error instanceof EtcdRefused || !(error instanceof GatewayUnavailable)) throw await this.translate(error, 0);
        if (error.notServed) {
          if (this.revisionReader === reader) this.revisionReader = undefined;
          reader.close();
        }
      }
    }
    return this.currentRevisionOverGrpc();
  }

  private async currentRevisionOverGrpc(): Promise<number> {
    const response = await this.call((kv, callOptions) => kv.range({ key: this.toEtcd(`${REGISTRY}/`), count_only: true }, callOptions));
    return Number(response.header.revision);
  }

  /**
   * etcd does not report its compacted revision, so it is found by reading: the lowest revision a
   * read still succeeds at, searched between the last one seen and the current revision (a few
   * reads; compaction only moves forward). A store that was never compacted answers 0.
   */
  async compactedRevision(): Promise<number> {
    const current = await this.currentRevision();
    let low = Math.max(1, this.knownCompacted);
    if (await this.readableAt(low)) return this.remember(low === 1 ? 0 : low);
    let high = current;
    while (low + 1 < high) {
      const middle = Math.floor((low + high) / 2);
      if (await this.readableAt(middle)) high = middle;
      else low = middle;
    }
    return this.remember(high);
  }

  async compact(revision: number): Promise<void> {
    const target = Math.min(revision, await this.currentRevision());
    if (target <= 1 || target <= (await this.compactedRevision())) return;
    try {
      await this.call((_kv, callOptions) => this.client.kv.compact({ revision: target, physical: true }, callOptions));
    } catch (error) {
      // Another control plane on the same etcd compacted past the target first.
      if (!(isControlPlaneError(error) && error.code === "Expired")) throw error;
    }
    this.remember(target);
  }

  /**
   * One round of kube-apiserver's compaction schedule (etcd-compaction.ts): the round to run next.
   * Like upstream, a failed compaction still moves the schedule on; a failed write of the key does not.
   */
  async compactionRound(
    round: CompactionRound,
    compact: (revision: number) => Promise<void> = (revision) => this.compact(revision),
  ): Promise<CompactionRound> {
    const { next, compactTo } = await compactionRound((request) => this.call((kv, callOptions) => kv.txn(request, callOptions)), round);
    if (compactTo !== undefined) await compact(compactTo).catch(() => {});
    return next;
  }

  /** A linearizable read of a key, as kube-apiserver's etcd health check does. */
  async checkHealth(): Promise<void> {
    await this.call((kv, callOptions) => kv.range({ key: Buffer.from("health") }, callOptions), 0, this.healthCheckTimeoutMs);
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    for (const watch of [...this.watches]) watch.fail(storageClosed());
    this.revisionReader?.close();
    this.client.close();
    return Promise.resolve();
  }

  private remember(compacted: number): number {
    this.knownCompacted = Math.max(this.knownCompacted, compacted);
    return compacted;
  }

  private async readableAt(revision: number): Promise<boolean> {
    if (this.closed) throw storageClosed();
    try {
      await this.client.kv.range(
        { key: this.toEtcd(`${REGISTRY}/`), revision, count_only: true },
        { deadline: new Date(Date.now() + this.requestTimeoutMs) },
      );
      return true;
    } catch (error) {
      // Not through call(): its translation of a compacted read asks for the compacted revision.
      if (error instanceof Error && error.message.includes(COMPACTED)) return false;
      throw await this.translate(error, revision);
    }
  }

  private casFailure(key: string, expected: number | undefined, response: RPC.ITxnResponse): Error {
    const current = response.responses[0]?.response_range.kvs[0];
    if (current === undefined) return keyNotFound(key);
    return revisionConflict(key, expected ?? 0, Number(current.mod_revision));
  }

  private requestedRevision(revision: number | undefined): number {
    if (this.closed) throw storageClosed();
    if (revision === undefined || revision === 0) return 0;
    if (!Number.isInteger(revision) || revision < 0) throw badRequest(`invalid revision ${revision}`);
    return revision;
  }

  /** Runs one etcd request with a deadline, turning etcd's failures into the contract's errors. */
  private async call<T>(
    request: (kv: RPC.KVClient, callOptions: { deadline: Date }) => Promise<T>,
    revision = 0,
    timeoutMs = this.requestTimeoutMs,
  ): Promise<T> {
    if (this.closed) throw storageClosed();
    try {
      return await request(this.client.kv, { deadline: new Date(Date.now() + timeoutMs) });
    } catch (error) {
      throw await this.translate(error, revision);
    }
  }

  private async translate(error: unknown, revision: number): Promise<Error> {
    if (this.closed) return storageClosed();
    const message = error instanceof Error ? error.message : String(error);
    if (message.includes(COMPACTED)) {
      // The request's own failure proves the history is gone; the revision it is gone to is found
      // without the failing request's help.
      const compacted = await this.compactedRevision().catch(() => this.knownCompacted);
      return tooOldResourceVersion(revision, compacted);
    }
    if (message.includes(FUTURE)) return tooLargeResourceVersion(revision, await this.currentRevision().catch(() => 0));
    // Not retryable: kube-apiserver passes etcd's error on as it is, a 500 without a reason.
    if (message.includes(TOO_LARGE)) return unknownError(TOO_LARGE, { cause: error });
    return serviceUnavailable(`etcd: ${message}`, { cause: error });
  }

  /** `/registry/…` keys move under the configured prefix; the contract has no keys elsewhere, and any other key is stored as it is. */
  private toEtcd(key: string): Buffer {
    return Buffer.from(key.startsWith(`${REGISTRY}/`) ? `${this.prefix}${key.slice(REGISTRY.length)}` : key);
  }

  private fromEtcd(entry: RPC.IKeyValue): KeyValue {
    const etcdKey = entry.key.toString();
    const key = etcdKey.startsWith(`${this.prefix}/`) ? `${REGISTRY}${etcdKey.slice(this.prefix.length)}` : etcdKey;
    return { key, value: entry.value.toString(), createRevision: Number(entry.create_revision), modRevision: Number(entry.mod_revision) };
  }

  /** The end of the etcd range covering every key under `directory` (etcd's prefix range end). */
  private rangeEnd(directory: string): Buffer {
    const start = this.toEtcd(directory);
    const end = Buffer.from(start);
    for (let i = end.length - 1; i >= 0; i--) {
      if (end[i]! < 0xff) {
        end[i]!++;
        return end.subarray(0, i + 1);
      }
    }
    return Buffer.from([0]);
  }
}

/** The gRPC duplex underneath is a Node stream, so it can be paused for backpressure. */
type WatchStream = RPC.IDuplexStream<RPC.IWatchRequest, RPC.IWatchResponse> & { pause?(): unknown; resume?(): unknown };

/**
 * One etcd watch on its own gRPC stream (streams share the client's connection). The stream is not
 * resumed after it breaks: the watch ends with `onError`, and the registry's watchers re-list, as
 * kube-apiserver's etcd3 watcher ends a watch on an etcd error.
 */
class EtcdWatch implements StorageWatch {
  private ended = false;

  constructor(
    private readonly stream: WatchStream,
    private readonly options: WatchOptions,
    /** Events up to this revision are history; later ones are live and never wait for `whenReady`. */
    private readonly replayThrough: number,
    private readonly convert: (entry: RPC.IKeyValue) => KeyValue,
    private readonly compactedRevision: () => Promise<number>,
    private readonly forget: () => void,
  ) {}

  /** Resolves once etcd has accepted the watch. */
  start(request: RPC.IWatchCreateRequest): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let created = false;
      this.stream.on("data", (response: RPC.IWatchResponse) => {
        if (response.canceled) {
          const error = this.cancelled(response);
          if (created) void error.then((e) => this.fail(e));
          else
            void error.then((e) => {
              this.close();
              reject(e);
            });
          return;
        }
        if (response.created && !created) {
          created = true;
          resolve();
        }
        if (response.events.length > 0 && !this.ended) this.deliver(response.events.map((event) => this.toEvent(event)));
      });
      const broken = (error: Error): void => {
        const failure = serviceUnavailable(`etcd watch: ${error.message}`, { cause: error });
        if (created) this.fail(failure);
        else {
          this.close();
          reject(failure);
        }
      };
      this.stream.on("error", broken);
      this.stream.on("end", () => broken(new Error("watch stream ended")));
      this.stream.write({ create_request: request });
    });
  }

  stop(): void {
    this.close();
  }

  /** Ends the watch with an error (once), e.g. when the storage closes. */
  fail(error: Error): void {
    if (this.ended) return;
    this.close();
    this.options.onError?.(error);
  }

  private close(): void {
    if (this.ended) return;
    this.ended = true;
    this.forget();
    this.stream.on("error", () => {});
    // Ending our side first tells the client this is no connection failure (it would otherwise
    // count the cancelled stream against the member and reset its channels).
    this.stream.end();
    this.stream.cancel();
  }

  /**
   * Hands a batch over; during the replay a consumer that is not ready pauses the stream (gRPC flow
   * control then holds etcd back), and on resuming the watch ends with Expired if compaction
   * overtook the replay meanwhile, as the embedded backends' replay does.
   */
  private deliver(events: StorageEvent[]): void {
    this.options.onEvents(events);
    const last = events[events.length - 1]!.kv.modRevision;
    if (last >= this.replayThrough || this.stream.pause === undefined) return;
    const wait = this.options.whenReady?.();
    if (wait === undefined) return;
    this.stream.pause();
    void wait
      .then(async () => {
        if (this.ended) return;
        const compacted = await this.compactedRevision();
        if (compacted > last) this.fail(tooOldResourceVersion(last, compacted));
        else this.stream.resume?.();
      })
      .catch((error: unknown) => this.fail(error instanceof Error ? error : new Error(String(error))));
  }

  private async cancelled(response: RPC.IWatchResponse): Promise<Error> {
    const compactRevision = Number(response.compact_revision);
    if (compactRevision > 0) return tooOldResourceVersion(this.options.afterRevision, compactRevision);
    const compacted = await this.compactedRevision().catch(() => 0);
    if (compacted > this.options.afterRevision) return tooOldResourceVersion(this.options.afterRevision, compacted);
    return serviceUnavailable(`etcd cancelled the watch${response.cancel_reason === "" ? "" : `: ${response.cancel_reason}`}`);
  }

  private toEvent(event: RPC.IEvent): StorageEvent {
    const previous = event.prev_kv === undefined || event.prev_kv === null ? undefined : this.convert(event.prev_kv);
    if (event.type === "Delete") {
      // etcd's delete event carries only the key and the revision; the contract's carries the last value.
      const prev = previous ?? this.convert(event.kv);
      return { type: "delete", kv: { ...prev, modRevision: Number(event.kv.mod_revision) }, prev };
    }
    return { type: "put", kv: this.convert(event.kv), prev: previous };
  }
}
