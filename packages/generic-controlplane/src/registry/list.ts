import type { KubeList, KubeObject } from "../api/types.js";
import { ControlPlaneError, isControlPlaneError } from "../errors.js";
import type { KeyValue, Storage } from "../storage/types.js";
import { decodeContinueToken, encodeContinueToken } from "./continue-token.js";
import type { ResourceDefinition } from "./resource-definition.js";
import { parseResourceVersion, validateListRequest } from "./request-validation.js";
import { buildMatcher } from "./selection.js";
import type { ListRequest } from "./types.js";

export interface ListContext {
  definition: ResourceDefinition;
  storage: Storage;
  apiVersion: string;
  decode(kv: KeyValue): KubeObject;
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
  const directory = prefix.endsWith("/") ? prefix : `${prefix}/`;

  let revision = 0;
  let startAfter: string | undefined;
  let paging = false;
  if (request.continue) {
    const token = decodeContinueToken(request.continue);
    paging = true;
    revision = token.revision === -1 ? 0 : token.revision;
    startAfter = directory + token.start;
  } else if (request.resourceVersion !== undefined && request.resourceVersion !== "" && request.resourceVersion !== "0") {
    const requested = parseResourceVersion(request.resourceVersion);
    // Legacy paging semantics: a resourceVersion with a limit and no match means Exact.
    const exact = request.resourceVersionMatch === "Exact" || (request.resourceVersionMatch === undefined && limit > 0);
    if (exact) revision = requested;
    else {
      const current = await ctx.storage.currentRevision();
      if (requested > current) {
        throw new ControlPlaneError("Timeout", `Too large resource version: ${requested}, current: ${current}`, {
          details: { causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }], retryAfterSeconds: 1 },
        });
      }
    }
  }

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
        kind: ctx.definition.listKind ?? `${ctx.definition.kind}List`,
        metadata: { resourceVersion: String(at) },
        items: object !== undefined && matcher.matches(object) ? [object] : [],
      };
    }
    for (;;) {
      const page = await ctx.storage.list(prefix, {
        ...(limit > 0 ? { limit: Math.max(limit - items.length, matcher.everything ? 0 : 64) } : {}),
        ...(startAfter !== undefined ? { startAfter } : {}),
        ...(revision > 0 ? { revision } : {}),
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
    if (isControlPlaneError(error) && error.code === "Expired") {
      if (paging && startAfter !== undefined) {
        const token = encodeContinueToken({ revision: -1, start: startAfter.slice(directory.length) });
        throw new ControlPlaneError("Expired", INCONSISTENT_CONTINUE, { continueToken: token, cause: error });
      }
      throw new ControlPlaneError("Expired", EXPIRED, { cause: error });
    }
    throw error;
  }

  const list: KubeList = {
    apiVersion: ctx.apiVersion,
    kind: ctx.definition.listKind ?? `${ctx.definition.kind}List`,
    metadata: { resourceVersion: String(revision) },
    items,
  };
  if (hasMore && lastKey !== undefined) {
    list.metadata.continue = encodeContinueToken({ revision, start: lastKey.slice(directory.length) });
    if (matcher.everything && remaining > 0) list.metadata.remainingItemCount = remaining;
  }
  return list;
}
