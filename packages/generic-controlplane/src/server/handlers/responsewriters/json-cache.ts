import { stringifyExactJson } from "../../../api/exact-json.js";

/**
 * Compact JSON of objects that are shared and never mutated (decoded stored values), remembered
 * per object as bytes: a value listed again is neither serialised nor encoded again.
 */
const encoded = new WeakMap<object, Buffer>();

/** The same for whole pages of such objects that are themselves shared and never changed (frozen). */
const encodedPages = new WeakMap<readonly object[], Buffer>();

/** `,` followed by the value's compact JSON, as UTF-8; `subarray(1)` is the JSON alone. */
export function sharedJsonAfterComma(value: object): Buffer {
  let bytes = encoded.get(value);
  if (bytes === undefined) {
    bytes = Buffer.from(`,${stringifyExactJson(value)}`);
    encoded.set(value, bytes);
  }
  return bytes;
}

/**
 * `sharedJsonAfterComma` of each value of a frozen page, in order, as one buffer kept for the
 * page (`encodedNow` when this call made it): writing the page again is one write of bytes already there, with no look-up or copy per
 * object. Values first encoded here keep their JSON as a view of the page's buffer, so an object
 * listed in one unchanged page has its encoding held once.
 */
export function sharedPageJsonAfterCommas(values: readonly object[]): { bytes: Buffer; encodedNow: boolean } {
  let bytes = encodedPages.get(values);
  if (bytes !== undefined) return { bytes, encodedNow: false };
  const parts: Array<Buffer | string> = [];
  let length = 0;
  for (const value of values) {
    const known = encoded.get(value);
    const part = known ?? `,${stringifyExactJson(value)}`;
    parts.push(part);
    length += typeof part === "string" ? Buffer.byteLength(part) : part.length;
  }
  bytes = Buffer.allocUnsafeSlow(length);
  let offset = 0;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (typeof part === "string") {
      const written = bytes.write(part, offset);
      encoded.set(values[i]!, bytes.subarray(offset, offset + written));
      offset += written;
    } else {
      bytes.set(part, offset);
      offset += part.length;
    }
  }
  encodedPages.set(values, bytes);
  return { bytes, encodedNow: true };
}
