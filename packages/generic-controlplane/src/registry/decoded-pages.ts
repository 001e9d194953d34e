import type { KubeObject } from "../api/types.js";
import type { KeyValue } from "../storage/types.js";

/** Pages kept per store: a list of 128,000 objects read in 500-object pages. */
const KEPT_PAGES = 256;

interface DecodedPage {
  values: readonly KeyValue[];
  objects: KubeObject[];
}

/**
 * The decoded objects of the pages a store's lists were read in, per the key each page starts at
 * (the most recently read pages, `kept` of them). A page read again with the same stored entries
 * (the same values, not only the same keys) is answered with the same frozen array, so neither
 * its decoding nor a look-up per object is repeated for an unchanged list, and whoever writes it
 * out can keep its bytes per array. A page with any entry changed, added or gone is decoded anew.
 */
export class DecodedPages {
  private readonly pages = new Map<string, DecodedPage>();

  constructor(
    private readonly decode: (kv: KeyValue) => KubeObject,
    private readonly kept = KEPT_PAGES,
  ) {}

  objectsOf(values: readonly KeyValue[]): KubeObject[] {
    const first = values[0];
    if (first === undefined) return [];
    const cached = this.pages.get(first.key);
    this.pages.delete(first.key);
    if (cached !== undefined && sameEntries(cached.values, values)) {
      this.pages.set(first.key, cached);
      return cached.objects;
    }
    const objects = Object.freeze(values.map(this.decode)) as KubeObject[];
    this.pages.set(first.key, { values: values.slice(), objects });
    if (this.pages.size > this.kept) this.pages.delete(this.pages.keys().next().value!);
    return objects;
  }
}

function sameEntries(a: readonly KeyValue[], b: readonly KeyValue[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
