import { stringifyExactJson } from "../../../api/exact-json.js";

/**
 * Compact JSON of objects that are shared and never mutated (decoded stored values), remembered
 * per object as bytes: a value listed again is neither serialised nor encoded again.
 */
const encoded = new WeakMap<object, Buffer>();

/** `,` followed by the value's compact JSON, as UTF-8; `subarray(1)` is the JSON alone. */
export function sharedJsonAfterComma(value: object): Buffer {
  let bytes = encoded.get(value);
  if (bytes === undefined) {
    bytes = Buffer.from(`,${stringifyExactJson(value)}`);
    encoded.set(value, bytes);
  }
  return bytes;
}
