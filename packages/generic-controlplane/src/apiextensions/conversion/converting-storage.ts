import type { KubeObject } from "../../api/types.js";
import { conversionFailed, internalError } from "../../api/errors/index.js";
import type { KeyValue, ListOptions, ListResult, Storage, StorageEvent, StorageWatch, WatchOptions } from "../../storage/types.js";
import type { CustomResourceConverter } from "../conversion.js";
import { parseExactJson, stringifyExactJson } from "../../api/exact-json.js";

export interface ConvertingStorageOptions {
  converter: CustomResourceConverter;
  /** The version the store above serves (`<group>/<version>`): reads come out in it, writes come in in it. */
  servedApiVersion: string;
  /** The CRD's storage version: every write is stored in it. */
  storageApiVersion: string;
  /** Every version of the CRD (`<group>/<version>`), served or not: upstream's valid versions. */
  knownApiVersions: ReadonlySet<string>;
  /**
   * Fills in the defaults of the version an object is stored in. Upstream defaults what it
   * decodes from storage in that version, before converting; the requested version's defaults
   * are not applied on reads.
   */
  defaultStored?: (object: KubeObject) => void;
}

/**
 * The storage codec of one served version of a CRD whose conversion is not `None` (upstream's
 * per-version `crdConversionRESTOptionsGetter` codec): values are converted as they leave and
 * enter storage, so the registry's store above sees only the served version. Reads convert
 * the objects not already in the served version with one converter call per read: one for a get,
 * one per page of a list, one per batch of watch events (shared by every watcher of the store);
 * writes convert to the storage version. Keys, revisions and everything else pass through.
 */
export function convertingStorage(storage: Storage, options: ConvertingStorageOptions): Storage {
  return new ConvertingStorage(storage, options);
}

class ConvertingStorage implements Storage {
  /** Converted watch events per storage event, so watchers sharing an event share its conversion. */
  readonly #events = new WeakMap<StorageEvent, Promise<StorageEvent>>();

  constructor(
    private readonly storage: Storage,
    private readonly options: ConvertingStorageOptions,
  ) {}

  async get(key: string, options?: { revision?: number }): Promise<KeyValue | undefined> {
    const kv = await this.storage.get(key, options);
    return kv === undefined ? undefined : (await this.toServed([kv]))[0];
  }

  async list(prefix: string, options?: ListOptions): Promise<ListResult> {
    const page = await this.storage.list(prefix, options);
    const items = await this.toServed(page.items);
    return items === page.items ? page : { ...page, items };
  }

  count(prefix: string): Promise<number> {
    return this.storage.count(prefix);
  }

  async create(key: string, value: string): Promise<KeyValue> {
    const kv = await this.storage.create(key, await this.toStorage(value));
    return (await this.toServed([kv]))[0]!;
  }

  async update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    const kv = await this.storage.update(key, await this.toStorage(value), expectedModRevision);
    return (await this.toServed([kv]))[0]!;
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    const kv = await this.storage.delete(key, expectedModRevision);
    return (await this.toServed([kv]))[0]!;
  }

  async watch(prefix: string, options: WatchOptions): Promise<StorageWatch> {
    // Conversions of successive batches run at once; delivery keeps their order.
    let delivered: Promise<void> = Promise.resolve();
    let ended = false;
    const handle: { inner?: StorageWatch } = {};
    const fail = (error: unknown): void => {
      if (ended) return;
      ended = true;
      handle.inner?.stop();
      // As upstream's etcd watcher reports an event it cannot decode: an InternalError.
      options.onError?.(internalError(error));
    };
    const inner = await this.storage.watch(prefix, {
      afterRevision: options.afterRevision,
      onEvents: (events) => {
        const converted = this.convertEvents(events);
        converted.catch(() => undefined);
        delivered = delivered
          .then(async () => {
            if (ended) return;
            let out: StorageEvent[];
            try {
              out = await converted;
            } catch (error) {
              fail(error);
              return;
            }
            if (!ended) options.onEvents(out);
          })
          .catch(fail);
      },
      // The replay waits for the conversions of what it already handed over, then for the consumer.
      whenReady: () => delivered.then(() => options.whenReady?.()),
      onError: (error) => {
        delivered = delivered.then(() => {
          if (ended) return;
          ended = true;
          options.onError?.(error);
        });
      },
    });
    handle.inner = inner;
    if (ended) inner.stop();
    return {
      stop: () => {
        ended = true;
        inner.stop();
      },
    };
  }

  currentRevision(): Promise<number> {
    return this.storage.currentRevision();
  }

  compactedRevision(): Promise<number> {
    return this.storage.compactedRevision();
  }

  compact(revision: number): Promise<void> {
    return this.storage.compact(revision);
  }

  checkHealth(): Promise<void> {
    return this.storage.checkHealth?.() ?? this.storage.currentRevision().then(() => undefined);
  }

  close(): Promise<void> {
    return this.storage.close();
  }

  /** Events in the served version; events already converted for another watcher are reused. */
  private convertEvents(events: StorageEvent[]): Promise<StorageEvent[]> {
    const fresh = events.filter((event) => !this.#events.has(event));
    if (fresh.length > 0) {
      const values: KeyValue[] = [];
      for (const event of fresh) values.push(event.kv, ...(event.prev === undefined ? [] : [event.prev]));
      const batch = this.toServed(values);
      let at = 0;
      for (const event of fresh) {
        const kvAt = at++;
        const prevAt = event.prev === undefined ? -1 : at++;
        this.#events.set(
          event,
          batch.then((converted) =>
            converted === values
              ? event
              : ({ ...event, kv: converted[kvAt]!, prev: prevAt < 0 ? undefined : converted[prevAt] } as StorageEvent),
          ),
        );
      }
      // A failed batch is reported to the watcher that asked; later watchers try again.
      batch.catch(() => {
        for (const event of fresh) this.#events.delete(event);
      });
    }
    return Promise.all(events.map((event) => this.#events.get(event)!));
  }

  /**
   * `kvs` with every value in the served version: the input array itself when nothing needed
   * converting, else copies, with one converter call for the values that did (each distinct value once).
   */
  private async toServed(kvs: KeyValue[]): Promise<KeyValue[]> {
    const served = this.options.servedApiVersion;
    const defaultStored = this.options.defaultStored;
    const pending = new Map<string, KubeObject>();
    /** Stored values whose served form is the value with the stored version's defaults filled in. */
    const defaulted = new Map<string, string>();
    for (const kv of kvs) {
      if (pending.has(kv.value) || defaulted.has(kv.value)) continue;
      const object = parseExactJson(kv.value) as KubeObject;
      defaultStored?.(object);
      if (object.apiVersion !== served) pending.set(kv.value, object);
      else if (defaultStored !== undefined) {
        // Written by JSON.stringify, so the same text unless a default was filled in.
        const value = stringifyExactJson(object);
        if (value !== kv.value) defaulted.set(kv.value, value);
      }
    }
    if (pending.size === 0 && defaulted.size === 0) return kvs;
    const values = defaulted;
    if (pending.size > 0) {
      const originals = [...pending.values()];
      this.checkKnown(originals);
      const converted = await this.options.converter.convert(originals, served);
      [...pending.keys()].forEach((value, i) => values.set(value, JSON.stringify(converted[i])));
    }
    return kvs.map((kv) => {
      const value = values.get(kv.value);
      return value === undefined ? kv : { ...kv, value };
    });
  }

  /** A written value (in the served version) in the storage version. */
  private async toStorage(value: string): Promise<string> {
    const object = parseExactJson(value) as KubeObject;
    const target = this.options.storageApiVersion;
    if (object.apiVersion === target) return value;
    this.checkKnown([object]);
    const [converted] = await this.options.converter.convert([object], target);
    return JSON.stringify(converted);
  }

  /** upstream `crConverter.ConvertToVersion`: only versions the CRD has are converted. */
  private checkKnown(objects: KubeObject[]): void {
    const known = this.options.knownApiVersions;
    objects.forEach((object, index) => {
      if (known.has(object.apiVersion ?? "")) return;
      throw conversionFailed(
        objects.length === 1
          ? `request to convert CR from an invalid group/version: ${object.apiVersion ?? ""}`
          : `request to convert CR list failed, list index ${index} has invalid group/version: ${object.apiVersion ?? ""}`,
      );
    });
  }
}
