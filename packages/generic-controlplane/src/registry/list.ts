import type { KubeList, KubeObject } from "../api/types.js";
import { resourceExpired, tooLargeResourceVersion } from "../api/errors/index.js";
import { isControlPlaneError } from "../api/errors/control-plane-error.js";
import type { KeyValue, Storage } from "../storage/types.js";
import { decodeContinueToken, encodeContinueToken } from "./continue-token.js";
import type { ResourceDefinition } from "./rest/resource-definition.js";
import { parseResourceVersion, validateListRequest } from "./request-validation.js";
import { buildMatcher } from "./selection.js";
import type { ListPages, ListRequest } from "./types.js";

export interface ListContext {
  definition: ResourceDefinition;
  storage: Storage;
  apiVersion: string;
  decode(kv: KeyValue): KubeObject;
  /**
   * The decoded objects of a whole page of stored values, when they are shared and never changed:
   * the same (frozen) array for a page read again with the same entries. Used for pages nothing is
   * filtered from.
   */
  decodePage?(values: readonly KeyValue[]): KubeObject[];
  /** The key of one object, when the namespace is known (from the request or the field selector). */
  exactKey?(name: string, namespaceFromSelector: string | undefined): string | undefined;
}

const EXPIRED = "The resourceVersion for the provided list is too old.";
const INCONSISTENT_CONTINUE =
  "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

/**
 * LIST with kube-apiserver semantics: selectors, `limit`/`continue` paging over one snapshot,
 * `remainingItemCount` when nothing is filtered, and resourceVersion unset (latest), `"0"` (any),
 * or a revision read `Exact`ly or `NotOlderThan`.
 */
export async function listObjects(ctx: ListContext, prefix: string, request: ListRequest): Promise<KubeList> {
  validateListRequest(request);
  const matcher = buildMatcher(ctx.definition, request.labelSelector, request.fieldSelector);
  const limit = request.limit ?? 0;
  const directory = directoryOf(prefix);
  const start = await listStart(ctx, request, directory, limit);
  let revision = start.revision;
  let startAfter = start.startAfter;

  const items: KubeObject[] = [];
  let lastKey: string | undefined;
  let hasMore = false;
  let remaining = 0;
  try {
    // `metadata.name=x` (kubectl delete/wait, single-object watches' relists) reads one key.
    const name = request.continue ? undefined : matcher.requiredValue("metadata.name");
    const key = name === undefined ? undefined : ctx.exactKey?.(name, matcher.requiredValue("metadata.namespace"));
    if (key !== undefined) {
      const at = revision > 0 ? revision : await ctx.storage.currentRevision();
      const kv = await ctx.storage.get(key, { revision: at });
      const object = kv === undefined ? undefined : ctx.decode(kv);
      return {
        apiVersion: ctx.apiVersion,
        kind: listKindOf(ctx),
        metadata: { resourceVersion: String(at) },
        items: object !== undefined && matcher.matches(object) ? [object] : [],
      };
    }
    for (;;) {
      const page = await ctx.storage.list(prefix, {
        ...(limit > 0 ? { limit: Math.max(limit - items.length, matcher.everything ? 0 : 64) } : {}),
        ...(startAfter !== undefined ? { startAfter } : {}),
        ...(revision > 0 ? { revision } : start.minRevision !== undefined ? { minRevision: start.minRevision } : {}),
        // remainingItemCount is only sent when nothing is filtered.
        ...(matcher.everything ? {} : { countRemaining: false }),
      });
      revision = page.revision;
      let stoppedEarly = false;
      for (const kv of page.items) {
        if (limit > 0 && items.length >= limit) {
          stoppedEarly = true;
          break;
        }
        lastKey = kv.key;
        const object = ctx.decode(kv);
        if (matcher.matches(object)) items.push(object);
      }
      if (stoppedEarly || (limit > 0 && items.length >= limit && page.remaining > 0)) {
        hasMore = true;
        remaining = stoppedEarly ? -1 : page.remaining;
        break;
      }
      if (page.remaining === 0 || limit === 0 || lastKey === undefined) break;
      startAfter = lastKey;
    }
  } catch (error) {
    throw listFailure(error, start.paging ? startAfter : undefined, directory);
  }

  const list: KubeList = {
    apiVersion: ctx.apiVersion,
    kind: listKindOf(ctx),
    metadata: { resourceVersion: String(revision) },
    items,
  };
  if (hasMore && lastKey !== undefined) {
    list.metadata.continue = encodeContinueToken({ revision, start: lastKey.slice(directory.length) });
    if (matcher.everything && remaining > 0) list.metadata.remainingItemCount = remaining;
  }
  return list;
}

/** Objects a paged read of a whole list asks storage for at a time. */
export const LIST_PAGE_SIZE = 500;

/**
 * LIST as pages, for requests whose answer is the whole (rest of the) collection: no `limit`, and
 * not the single-key read of a `metadata.name` selector (undefined then; use `listObjects`).
 * Errors up to the first page (bad request, too large or expired resourceVersion, inconsistent
 * continue) reject like `listObjects`; a failure of a later page (its snapshot was compacted
 * meanwhile) rejects the iteration.
 */
export async function listPages(
  ctx: ListContext,
  prefix: string,
  request: ListRequest,
  pageSize = LIST_PAGE_SIZE,
): Promise<ListPages | undefined> {
  validateListRequest(request);
  if ((request.limit ?? 0) > 0) return undefined;
  const matcher = buildMatcher(ctx.definition, request.labelSelector, request.fieldSelector);
  const name = request.continue ? undefined : matcher.requiredValue("metadata.name");
  if (name !== undefined && ctx.exactKey?.(name, matcher.requiredValue("metadata.namespace")) !== undefined) return undefined;
  const directory = directoryOf(prefix);
  const start = await listStart(ctx, request, directory, 0);
  const read = async (startAfter: string | undefined, revision: number) => {
    try {
      return await ctx.storage.list(prefix, {
        limit: pageSize,
        countRemaining: false,
        ...(startAfter !== undefined ? { startAfter } : {}),
        ...(revision > 0 ? { revision } : start.minRevision !== undefined ? { minRevision: start.minRevision } : {}),
      });
    } catch (error) {
      throw listFailure(error, start.paging ? startAfter : undefined, directory);
    }
  };
  const first = await read(start.startAfter, start.revision);
  const revision = first.revision;
  const matching = (kvs: KeyValue[]): KubeObject[] => {
    if (matcher.everything && ctx.decodePage !== undefined) return ctx.decodePage(kvs);
    const objects: KubeObject[] = [];
    for (const kv of kvs) {
      const object = ctx.decode(kv);
      if (matcher.matches(object)) objects.push(object);
    }
    return objects;
  };
  let firstUnused = true;
  async function* pages(): AsyncGenerator<KubeObject[]> {
    // The first iteration starts with the page already read; another one reads it again at the same revision.
    let page = firstUnused ? first : await read(start.startAfter, revision);
    firstUnused = false;
    for (;;) {
      yield matching(page.items);
      if (page.remaining === 0 || page.items.length === 0) return;
      page = await read(page.items[page.items.length - 1]!.key, revision);
    }
  }
  return {
    apiVersion: ctx.apiVersion,
    kind: listKindOf(ctx),
    metadata: { resourceVersion: String(revision) },
    pages: { [Symbol.asyncIterator]: pages },
  };
}

function directoryOf(prefix: string): string {
  return prefix.endsWith("/") ? prefix : `${prefix}/`;
}

function listKindOf(ctx: ListContext): string {
  return ctx.definition.listKind ?? `${ctx.definition.kind}List`;
}

/**
 * Where a list starts: the revision to read at (0: the latest), the key to continue after, and
 * for a latest read the oldest state that will do (undefined: a consistent read of the current one).
 */
async function listStart(
  ctx: ListContext,
  request: ListRequest,
  directory: string,
  limit: number,
): Promise<{ revision: number; startAfter: string | undefined; paging: boolean; minRevision: number | undefined }> {
  if (request.continue) {
    const token = decodeContinueToken(request.continue);
    return {
      revision: token.revision === -1 ? 0 : token.revision,
      startAfter: directory + token.start,
      paging: true,
      minRevision: undefined,
    };
  }
  // resourceVersion "0": any state will do, as upstream serves it from its watch cache.
  if (request.resourceVersion === "0") return { revision: 0, startAfter: undefined, paging: false, minRevision: 0 };
  if (request.resourceVersion !== undefined && request.resourceVersion !== "") {
    const requested = parseResourceVersion(request.resourceVersion);
    // Legacy paging semantics: a resourceVersion with a limit and no match means Exact.
    const exact = request.resourceVersionMatch === "Exact" || (request.resourceVersionMatch === undefined && limit > 0);
    if (exact) return { revision: requested, startAfter: undefined, paging: false, minRevision: undefined };
    const current = await ctx.storage.currentRevision();
    if (requested > current) {
      throw tooLargeResourceVersion(requested, current);
    }
    return { revision: 0, startAfter: undefined, paging: false, minRevision: requested };
  }
  return { revision: 0, startAfter: undefined, paging: false, minRevision: undefined };
}

/** A storage failure as the list answers it: an expired snapshot is 410, with a fresh token when continuing. */
function listFailure(error: unknown, continuingAfter: string | undefined, directory: string): unknown {
  if (!isControlPlaneError(error) || error.code !== "Expired") return error;
  if (continuingAfter !== undefined) {
    const token = encodeContinueToken({ revision: -1, start: continuingAfter.slice(directory.length) });
    return resourceExpired(INCONSISTENT_CONTINUE, { continueToken: token, cause: error });
  }
  return resourceExpired(EXPIRED, { cause: error });
}
