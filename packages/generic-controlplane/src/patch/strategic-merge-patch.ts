import { badRequest, patchNotApplicable } from "../api/errors/index.js";
import type { ControlPlaneError } from "../api/errors/control-plane-error.js";
import type { JSONSchemaProps } from "../schema/types.js";
import { cloneJson, describeValue, isJsonObject, jsonEqual, ownValue, setOwn, type JsonObject, type JsonValue } from "./json-value.js";
import { fieldSchema, itemSchema, resolveSchema, withObjectMeta, type Definitions } from "./schema-walk.js";

const DIRECTIVE = "$patch";
const RETAIN_KEYS = "$retainKeys";
const SET_ELEMENT_ORDER = "$setElementOrder/";
const DELETE_FROM_PRIMITIVE_LIST = "$deleteFromPrimitiveList/";

export interface StrategicMergePatchOptions {
  /** Definitions `$ref`s in the schema point to, beyond the meta/v1 ones that are always known. */
  definitions?: Definitions;
}

/**
 * Strategic merge patch (`application/strategic-merge-patch+json`) with apimachinery's semantics:
 * lists whose schema says `x-kubernetes-patch-strategy: merge` merge item by item on
 * `x-kubernetes-patch-merge-key` (lists of scalars merge as sets); other lists are replaced; maps
 * merge and `null` deletes a key. Directives: `$patch: replace|delete|merge` on maps and list
 * items, `$setElementOrder/<field>`, `$retainKeys` and `$deleteFromPrimitiveList/<field>`.
 * `schema` describes the whole object; `metadata` resolves to ObjectMeta. The inputs are not modified.
 */
export function applyStrategicMergePatch<T = unknown>(
  original: unknown,
  patch: unknown,
  schema: JSONSchemaProps,
  options: StrategicMergePatchOptions = {},
): T {
  if (!isJsonObject(patch)) {
    throw badRequest(`strategic merge patch must be a JSON object, got ${describeValue(patch)}`);
  }
  const start = isJsonObject(original) ? cloneJson(original) : {};
  const merger = new Merger(options.definitions);
  const merged = merger.mergeMap(start, cloneJson(patch), withObjectMeta(schema));
  merger.finish();
  return merged as T;
}

interface PatchMeta {
  strategies: string[];
  mergeKey: string;
}

type ElementKind = "map" | "scalar";

class Merger {
  /**
   * Maps nested in a map, merged after the map itself: objects nest 10,000 levels deep, and
   * merging each level by recursion would run out of stack. A map's own keys are always merged
   * at once (list merging reads the merge keys of the items it merges).
   */
  private readonly nested: Array<() => void> = [];

  constructor(private readonly definitions: Definitions | undefined) {}

  /** Merges every nested map still waiting. */
  finish(): void {
    for (let next = this.nested.pop(); next !== undefined; next = this.nested.pop()) next();
  }

  /**
   * The map `mergeMap(original, patch, schema)` returns, with its keys merged later (by finish):
   * its map directive is settled now, as it decides which object that is.
   */
  private mergeMapLater(original: JsonObject, patch: JsonObject, schema: JSONSchemaProps | undefined): JsonObject {
    let target = original;
    if (Object.hasOwn(patch, DIRECTIVE)) {
      const directive = patch[DIRECTIVE];
      if (directive === "delete") return {};
      if (directive === "replace") target = {};
      else if (directive !== "merge")
        throw badRequest(`unknown patch type: ${describeValue(directive)} in map: ${describeValue(withoutDirective(patch))}`);
      delete patch[DIRECTIVE];
    }
    this.nested.push(() => this.mergeMap(target, patch, schema));
    return target;
  }

  private sub(schema: JSONSchemaProps | undefined, key: string): JSONSchemaProps | undefined {
    const found = fieldSchema(schema, key, this.definitions);
    const resolved = resolveSchema(found, this.definitions);
    return resolved?.["x-kubernetes-embedded-resource"] === true ? withObjectMeta(resolved) : found;
  }

  private items(schema: JSONSchemaProps | undefined): JSONSchemaProps | undefined {
    const found = itemSchema(schema, this.definitions);
    const resolved = resolveSchema(found, this.definitions);
    return resolved?.["x-kubernetes-embedded-resource"] === true ? withObjectMeta(resolved) : found;
  }

  private meta(schema: JSONSchemaProps | undefined): PatchMeta {
    const resolved = resolveSchema(schema, this.definitions);
    const strategy = resolved?.["x-kubernetes-patch-strategy"] ?? "";
    return {
      strategies: strategy === "" ? [] : strategy.split(",").map((s) => s.trim()),
      mergeKey: resolved?.["x-kubernetes-patch-merge-key"] ?? "",
    };
  }

  /** Merges `patch` (owned, consumed) into `original` (owned, mutated). */
  mergeMap(original: JsonObject, patch: JsonObject, schema: JSONSchemaProps | undefined): JsonObject {
    if (Object.hasOwn(patch, DIRECTIVE)) {
      const directive = patch[DIRECTIVE];
      delete patch[DIRECTIVE];
      if (directive === "replace") return this.mergeMap({}, patch, schema);
      if (directive === "delete") return {};
      if (directive !== "merge") {
        throw badRequest(`unknown patch type: ${describeValue(directive)} in map: ${describeValue(patch)}`);
      }
    }
    this.applyRetainKeys(original, patch);
    this.mergeOrderedLists(original, patch, schema);

    for (const [key, value] of Object.entries(patch)) {
      if (key === RETAIN_KEYS || key.startsWith(SET_ELEMENT_ORDER)) continue;
      if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
        this.deleteFromPrimitiveList(original, key.slice(DELETE_FROM_PRIMITIVE_LIST.length), value);
        continue;
      }
      if (value === null) {
        delete original[key];
        continue;
      }
      const fieldSchemaOfKey = this.sub(schema, key);
      const current = ownValue(original, key);
      if (isJsonObject(current) && isJsonObject(value)) {
        const { strategies } = this.meta(fieldSchemaOfKey);
        setOwn(
          original,
          key,
          strategies.includes("replace") ? this.fresh(value, fieldSchemaOfKey) : this.mergeMapLater(current, value, fieldSchemaOfKey),
        );
      } else if (Array.isArray(current) && Array.isArray(value)) {
        setOwn(original, key, this.mergeListField(current, value, fieldSchemaOfKey, key));
      } else {
        setOwn(original, key, this.fresh(value, fieldSchemaOfKey));
      }
    }
    return original;
  }

  /** A patch value for a field the original lacks (or holds with another type): directives and nulls removed. */
  private fresh(value: JsonValue, schema: JSONSchemaProps | undefined): JsonValue {
    if (isJsonObject(value)) return this.mergeMapLater({}, value, schema);
    if (Array.isArray(value)) return this.mergeListField([], value, schema, "");
    return value;
  }

  private mergeListField(original: JsonValue[], patch: JsonValue[], schema: JSONSchemaProps | undefined, key: string): JsonValue[] {
    const { strategies, mergeKey } = this.meta(schema);
    if (!strategies.includes("merge")) return patch;
    return this.mergeSlice(original, patch, this.items(schema), mergeKey, key);
  }

  private mergeSlice(
    original: JsonValue[],
    patch: JsonValue[],
    items: JSONSchemaProps | undefined,
    mergeKey: string,
    key: string,
  ): JsonValue[] {
    if (original.length === 0 && patch.length === 0) return original;
    const kind = elementKind(original, patch);
    if (kind === "scalar") {
      const merged = dedupe([...original, ...patch]);
      const [patchItems, serverOnly] = partition(merged, patch, "", kind);
      return normalizeElementOrder(patchItems, serverOnly, patch, original, "", kind);
    }
    if (mergeKey === "") throw badRequest(`cannot merge lists without merge key for ${key === "" ? "list" : key}`);

    let server = original;
    const plain: JsonObject[] = [];
    let replace = false;
    for (const item of patch) {
      if (!isJsonObject(item)) throw badRequest(`lists must hold items of one type: ${describeValue(item)}`);
      if (!Object.hasOwn(item, DIRECTIVE)) {
        plain.push(item);
        continue;
      }
      const directive = item[DIRECTIVE];
      if (directive === "delete") {
        if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
        const index = server.findIndex((candidate) => isJsonObject(candidate) && jsonEqual(candidate[mergeKey], item[mergeKey]));
        if (index !== -1) server = [...server.slice(0, index), ...server.slice(index + 1)];
      } else if (directive === "replace") {
        replace = true;
      } else if (directive === "merge") {
        throw badRequest("merging lists cannot yet be specified in the patch");
      } else {
        throw badRequest(`unknown patch type: ${describeValue(directive)} in map: ${describeValue(item)}`);
      }
    }
    if (replace) return plain.map((item) => this.mergeMap({}, item, items));

    const merged = [...server];
    for (const item of plain) {
      if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
      const index = merged.findIndex((candidate) => isJsonObject(candidate) && jsonEqual(candidate[mergeKey], item[mergeKey]));
      const existing = index === -1 ? undefined : merged[index];
      if (isJsonObject(existing)) {
        merged[index] = this.mergeMap(existing, item, items);
      } else {
        merged.push(this.mergeMap({}, item, items));
      }
    }
    const [patchItems, serverOnly] = partition(merged, plain, mergeKey, kind);
    return normalizeElementOrder(patchItems, serverOnly, plain, server, mergeKey, kind);
  }

  private applyRetainKeys(original: JsonObject, patch: JsonObject): void {
    if (!Object.hasOwn(patch, RETAIN_KEYS)) return;
    const keep = patch[RETAIN_KEYS];
    delete patch[RETAIN_KEYS];
    if (!Array.isArray(keep) || !keep.every((k) => typeof k === "string")) throw badRequest("invalid patch format of retainKeys");
    // Every field the patch sets must be one the directive retains.
    for (const [key, value] of Object.entries(patch)) {
      if (value === null || key === DIRECTIVE || key.startsWith(DELETE_FROM_PRIMITIVE_LIST) || key.startsWith(SET_ELEMENT_ORDER)) continue;
      if (!keep.includes(key)) throw badRequest("invalid patch format of retainKeys");
    }
    for (const key of Object.keys(original)) {
      if (!keep.includes(key)) delete original[key];
    }
  }

  private deleteFromPrimitiveList(original: JsonObject, key: string, value: JsonValue): void {
    if (!Array.isArray(value)) throw badRequest("invalid patch format of primitive list");
    const current = ownValue(original, key);
    if (!Array.isArray(current)) return;
    setOwn(
      original,
      key,
      current.filter((item) => !value.some((gone) => jsonEqual(gone, item))),
    );
  }

  /** `$setElementOrder/<field>`: merge the field's list now, then order it as the directive says. */
  private mergeOrderedLists(original: JsonObject, patch: JsonObject, schema: JSONSchemaProps | undefined): void {
    for (const [directiveKey, order] of Object.entries(patch)) {
      if (!directiveKey.startsWith(SET_ELEMENT_ORDER)) continue;
      if (!Array.isArray(order)) throw badRequest("invalid patch format of setElementOrder list");
      const key = directiveKey.slice(SET_ELEMENT_ORDER.length);
      const listSchema = this.sub(schema, key);
      const { mergeKey } = this.meta(listSchema);
      const current = ownValue(original, key);
      const patchList = ownValue(patch, key);
      if (current !== undefined && !Array.isArray(current))
        throw badRequest(`expected a []interface {}, but received a ${goTypeName(current)}`);
      if (patchList !== undefined && patchList !== null && !Array.isArray(patchList))
        throw badRequest(`expected a []interface {}, but received a ${goTypeName(patchList)}`);
      if (current === undefined && (patchList === undefined || patchList === null)) continue;
      const originalList = current ?? [];
      checkOrderMatchesPatch(Array.isArray(patchList) ? patchList : [], order, mergeKey);
      const merged = Array.isArray(patchList) ? this.mergeListField(originalList, patchList, listSchema, key) : originalList;
      const kind = elementKind(originalList, Array.isArray(patchList) ? patchList : []);
      const [patchItems, serverOnly] = partition(merged, order, mergeKey, kind);
      const serverOrder =
        Array.isArray(patchList) && kind === "map" && this.meta(listSchema).strategies.includes("merge")
          ? liveOrderSeenByUpstream(originalList, patchList, mergeKey)
          : originalList;
      setOwn(original, key, normalizeElementOrder(patchItems, serverOnly, order, serverOrder, mergeKey, kind));
      delete patch[key];
    }
  }
}

/**
 * The live list as apimachinery's `$setElementOrder` step sees it after merging. Upstream deletes
 * `$patch: delete` items by shifting the slice in place and appends new items into the freed
 * slots, and the ordering step then reads the original slice header over that shared array. The
 * resulting order is part of the observable behaviour (kubectl apply relies on it), so it is
 * reproduced here: deletions shift left, new items fill the slots up to the original length.
 */
function liveOrderSeenByUpstream(original: JsonValue[], patch: JsonValue[], mergeKey: string): JsonValue[] {
  const slots = [...original];
  let length = original.length;
  const find = (item: JsonObject) =>
    slots.slice(0, length).findIndex((candidate) => isJsonObject(candidate) && jsonEqual(candidate[mergeKey], item[mergeKey]));
  if (patch.some((item) => isJsonObject(item) && item[DIRECTIVE] === "replace")) return original;
  for (const item of patch) {
    if (!isJsonObject(item) || item[DIRECTIVE] !== "delete") continue;
    const index = find(item);
    if (index === -1) continue;
    slots.copyWithin(index, index + 1, length);
    length--;
  }
  for (const item of patch) {
    if (!isJsonObject(item) || Object.hasOwn(item, DIRECTIVE)) continue;
    if (find(item) !== -1) continue;
    if (length < original.length) slots[length] = item;
    length++;
  }
  return slots;
}

function goTypeName(value: JsonValue): string {
  if (isJsonObject(value)) return "map[string]interface {}";
  if (typeof value === "number") return "float64";
  return typeof value;
}

function noMergeKey(item: JsonObject, mergeKey: string): ControlPlaneError {
  return badRequest(`map: ${describeValue(item)} does not contain declared merge key: ${mergeKey}`);
}

function elementKind(...lists: JsonValue[][]): ElementKind {
  for (const list of lists) {
    for (const item of list) {
      if (Array.isArray(item)) throw patchNotApplicable("lists of lists are not supported");
      if (item !== null) return isJsonObject(item) ? "map" : "scalar";
    }
  }
  return "scalar";
}

function dedupe(list: JsonValue[]): JsonValue[] {
  const out: JsonValue[] = [];
  for (const item of list) if (!out.some((seen) => jsonEqual(seen, item))) out.push(item);
  return out;
}

function identity(item: JsonValue, mergeKey: string, kind: ElementKind): JsonValue | undefined {
  if (kind === "scalar" || mergeKey === "") return item;
  return isJsonObject(item) ? item[mergeKey] : undefined;
}

function indexIn(list: readonly JsonValue[], item: JsonValue, mergeKey: string, kind: ElementKind): number {
  const id = identity(item, mergeKey, kind);
  if (id === undefined) return -1;
  return list.findIndex((candidate) => {
    const other = identity(candidate, mergeKey, kind);
    return other !== undefined && jsonEqual(other, id);
  });
}

/** Splits `merged` into the items named in `named` and the ones only the server has. */
function partition(merged: JsonValue[], named: readonly JsonValue[], mergeKey: string, kind: ElementKind): [JsonValue[], JsonValue[]] {
  const inPatch: JsonValue[] = [];
  const serverOnly: JsonValue[] = [];
  for (const item of merged) (indexIn(named, item, mergeKey, kind) === -1 ? serverOnly : inPatch).push(item);
  return [inPatch, serverOnly];
}

function sortBy(list: JsonValue[], order: readonly JsonValue[], mergeKey: string, kind: ElementKind): JsonValue[] {
  const ranked = list.map((item, position) => ({ item, position, rank: indexIn(order, item, mergeKey, kind) }));
  ranked.sort((a, b) => {
    if (a.rank === -1 || b.rank === -1) return a.rank === b.rank ? a.position - b.position : a.rank === -1 ? 1 : -1;
    return a.rank - b.rank;
  });
  return ranked.map((r) => r.item);
}

/**
 * Patch items follow the patch order, server-only items keep the live order, and the two are
 * interleaved by their positions in the live list (apimachinery's `normalizeElementOrder`).
 */
function normalizeElementOrder(
  patchItems: JsonValue[],
  serverOnly: JsonValue[],
  patchOrder: readonly JsonValue[],
  serverOrder: readonly JsonValue[],
  mergeKey: string,
  kind: ElementKind,
): JsonValue[] {
  const right = sortBy(patchItems, patchOrder, mergeKey, kind);
  const left = sortBy(serverOnly, serverOrder, mergeKey, kind);
  const out: JsonValue[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) {
      out.push(right[j++] as JsonValue);
    } else if (j >= right.length) {
      out.push(left[i++] as JsonValue);
    } else {
      const li = indexIn(serverOrder, left[i] as JsonValue, mergeKey, kind);
      const ri = indexIn(serverOrder, right[j] as JsonValue, mergeKey, kind);
      // A server-only item goes first only when the live list puts it before the patch item;
      // items the live list lacks (new ones) win ties (upstream's mergeSortedSlice).
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++] as JsonValue);
      else out.push(right[j++] as JsonValue);
    }
  }
  return out;
}

/** The patch list must be a subsequence of `$setElementOrder` (ignoring directive items). */
function checkOrderMatchesPatch(patchList: JsonValue[], order: JsonValue[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const plain = patchList.filter((item) => !(isJsonObject(item) && Object.hasOwn(item, DIRECTIVE)));
  let p = 0;
  let o = 0;
  while (p < plain.length && o < order.length) {
    const a = plain[p] as JsonValue;
    const b = order[o] as JsonValue;
    const same = mergeKey === "" ? jsonEqual(a, b) : isJsonObject(a) && isJsonObject(b) && jsonEqual(a[mergeKey], b[mergeKey]);
    if (same) p++;
    o++;
  }
  if (p < plain.length) {
    throw badRequest(
      `The order in patch list:\n${describeValue(patchList)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${describeValue(order)}\n`,
    );
  }
}

/** A map patch without its `$patch` directive, as the unknown-directive message shows it. */
function withoutDirective(patch: JsonObject): JsonObject {
  const rest = { ...patch };
  delete rest[DIRECTIVE];
  return rest;
}
