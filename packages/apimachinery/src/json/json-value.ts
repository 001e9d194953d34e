/** Plain JSON values as the patch functions see them. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/**
 * The value `object` holds under `key` itself, never one it inherits: a client's key is a plain
 * string, and `constructor` or `__proto__` must read as absent, not as `Object.prototype`'s.
 */
export function ownValue<T>(object: { readonly [key: string]: T }, key: string): T | undefined {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/**
 * Stores `value` under `key` as an own property. Assigning `__proto__` would replace the object's
 * prototype (and merging into what it reads would change `Object.prototype` for the process).
 */
export function setOwn<T>(object: { [key: string]: T }, key: string, value: T): void {
  if (key === "__proto__") Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A deep copy of a decoded JSON value: objects and arrays are copied, strings, numbers, booleans
 * and null shared. A plain walk is several times cheaper than `structuredClone`, and every request
 * copies its object at least once. Anything that is not plain data (a Date, a Buffer) is handed to
 * `structuredClone`, which keeps its type. The walk keeps an explicit stack (as fast as recursion
 * here) because Kubernetes objects may nest 10,000 levels deep.
 */
export function cloneJson<T>(value: T): T {
  const copy = shallowCopy(value);
  if (copy === value) return value;
  // Pairs of (source, its copy) whose children still need copying.
  const pending: unknown[] = [value, copy];
  while (pending.length > 0) {
    const target = pending.pop() as Record<string, unknown> | unknown[];
    const source = pending.pop() as Record<string, unknown> | unknown[];
    if (Array.isArray(source)) {
      for (let i = 0; i < source.length; i++) {
        const child = shallowCopy(source[i]);
        (target as unknown[])[i] = child;
        if (child !== source[i] && isPlainContainer(source[i])) pending.push(source[i], child);
      }
      continue;
    }
    for (const key of Object.keys(source)) {
      const item = source[key];
      const child = shallowCopy(item);
      // JSON.parse makes "__proto__" an own key, which the copy keeps as one.
      setOwn(target as Record<string, unknown>, key, child);
      if (child !== item && isPlainContainer(item)) pending.push(item, child);
    }
  }
  return copy;
}

function isPlainContainer(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (Array.isArray(value)) return true;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** An empty container of `value`'s kind to fill, a structured clone of other objects, or `value` itself. */
function shallowCopy<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return new Array(value.length) as T;
  return (isPlainContainer(value) ? {} : structuredClone(value)) as T;
}
