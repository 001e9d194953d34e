import type { KubeObject } from "../api/types.js";
import type { KeyValue } from "../storage/types.js";
import { LruCache } from "./lru-cache.js";

interface DecodedValue {
  value: string;
  modRevision: number;
  object: KubeObject;
}

/**
 * The decoded objects of the stored values written or read most recently, shared by every watcher
 * a change fans out to and by the next write of the same key. Not kept for as long as storage
 * keeps the value: storage keeps every version until compaction, and a decoded object per version
 * is several times its JSON.
 *
 * An entry is found by the storage entry itself, or else by its key when the entry read holds the
 * very same value text at the very same revision (a read of a storage that hands out a new entry
 * per read): what is served is always the decoding of exactly the bytes read, so another writer,
 * a compaction or a lost compare-and-swap can never make it stale.
 */
export class DecodedValues {
  private readonly byEntry: LruCache<KeyValue, KubeObject>;
  private readonly byKey: LruCache<string, DecodedValue>;

  constructor(
    private readonly decodeFresh: (kv: KeyValue) => KubeObject,
    capacity: number,
  ) {
    this.byEntry = new LruCache(capacity);
    this.byKey = new LruCache(capacity);
  }

  /** The shared decoded object of `kv`: never to be changed by anyone. */
  get(kv: KeyValue): KubeObject {
    let object = this.byEntry.get(kv);
    if (object !== undefined) return object;
    const known = this.byKey.get(kv.key);
    if (known !== undefined && known.modRevision === kv.modRevision && known.value === kv.value) object = known.object;
    else {
      object = this.decodeFresh(kv);
      this.byKey.set(kv.key, { value: kv.value, modRevision: kv.modRevision, object });
    }
    this.byEntry.set(kv, object);
    return object;
  }

  /**
   * `get(kv)` frozen to its leaves, for a write to start from without a copy of its own: any
   * change to it throws instead of reaching every other reader of the shared object.
   */
  frozen(kv: KeyValue): KubeObject {
    return freezeJson(this.get(kv));
  }
}

/** Freezes a decoded JSON value and everything in it (a frozen root is taken as frozen throughout). */
export function freezeJson<T>(value: T): T {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return value;
  const pending: object[] = [value];
  while (pending.length > 0) {
    const node = pending.pop() as Record<string, unknown>;
    Object.freeze(node);
    for (const key in node) {
      const child = node[key];
      if (child !== null && typeof child === "object" && !Object.isFrozen(child)) pending.push(child);
    }
  }
  return value;
}
