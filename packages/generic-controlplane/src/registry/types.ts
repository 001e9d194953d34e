import type { DeleteOptions, KubeList, KubeObject, ListMeta, WatchEvent } from "../api/types.js";
import type { ResourceDefinition } from "./rest/resource-definition.js";

/** Who is asking, and how: carried from the HTTP layer into storage and admission. */
export interface RequestOptions {
  /** `dryRun=All`: run every step, persist nothing. */
  dryRun?: boolean;
  /** Recorded in `metadata.managedFields`; without one a write leaves them as stored. */
  fieldManager?: string;
  /**
   * Server-side apply: the object written is an applied configuration, merged into the live object
   * by field ownership (see fieldmanager/). Needs `fieldManager`; `force` takes conflicting fields.
   */
  apply?: { force: boolean };
  /**
   * Which subresource is written: the main resource, `status` (the stored spec is kept), or one a
   * resource's own REST storage writes through its own strategy, e.g. namespaces' `finalize`.
   */
  subresource?: string;
  /**
   * Server-internal writes only (e.g. namespace termination): lets an update set
   * `metadata.deletionTimestamp`/`deletionGracePeriodSeconds`, which client updates may never change.
   */
  allowSettingDeletionTimestamp?: boolean;
  /** Who sent the request; unset for the server's own writes (checked by RBAC's escalation rules). */
  user?: { name: string; groups: string[] };
}

export interface ListRequest {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  /** Unset: most recent; `"0"`: any state; otherwise as per `resourceVersionMatch`. */
  resourceVersion?: string;
  resourceVersionMatch?: "Exact" | "NotOlderThan";
}

export interface WatchRequest {
  labelSelector?: string;
  fieldSelector?: string;
  /** Unset or `"0"`: synthetic ADDED events for the current state first; otherwise only later events. */
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  /** WatchList: initial ADDED events then a BOOKMARK annotated `k8s.io/initial-events-end`. */
  sendInitialEvents?: boolean;
  /** Interval between progress BOOKMARKs when bookmarks are allowed. */
  bookmarkIntervalMs?: number;
  /**
   * When the watch will be ended (epoch ms, e.g. from `timeoutSeconds`): with bookmarks allowed,
   * one more BOOKMARK goes out 2 s before it, so the client resumes from the latest revision.
   */
  deadline?: number;
  /** Only `NotOlderThan`, and only together with `sendInitialEvents` (WatchList). */
  resourceVersionMatch?: "NotOlderThan";
}

export interface ResourceWatch {
  stop(): void;
}

/**
 * How a watch consumer slows the watch down: consulted after each page of initial events or of
 * replayed history; the next page is read only after the promise it returns settles (e.g. once
 * the socket drained). Live events are never held back.
 */
export interface WatchFlowControl {
  whenReady(): Promise<void> | undefined;
}

export interface DeleteResult {
  /** The object as deleted, or as it now stands with `deletionTimestamp` when finalizers hold it. */
  object: KubeObject;
  /** False when finalizers keep the object (the response is then 200 with the object). */
  deleted: boolean;
  /**
   * Answer with the object even when it was removed, instead of a Status naming it (upstream's
   * `Store.ReturnDeletedObject`, set for namespaces).
   */
  returnDeletedObject?: boolean;
}

/**
 * Generic REST storage for one resource type (k8s.io/apiserver's `registry/generic/registry.Store`):
 * metadata rules, strategy hooks, optimistic concurrency, selectors, paging and watch. Namespace
 * is `undefined` for cluster-scoped resources and for cluster-wide list/watch of namespaced ones.
 */
/**
 * A list read page by page: the envelope (with its resourceVersion) is known once the first page
 * was read, and `pages` yields the matching objects page after page, all read at that revision.
 * A caller that writes each page before pulling the next holds one page in memory, never the list.
 * `pages` can be iterated again (each iteration reads the list anew at the same revision), e.g. to
 * size a body before writing it. The objects may be shared with other readers (a stored value is
 * decoded once) and must not be mutated.
 */
export interface ListPages {
  apiVersion: string;
  kind: string;
  metadata: ListMeta;
  pages: AsyncIterable<KubeObject[]>;
}

export interface ResourceStore {
  readonly definition: ResourceDefinition;
  get(namespace: string | undefined, name: string): Promise<KubeObject>;
  list(namespace: string | undefined, request?: ListRequest): Promise<KubeList>;
  /**
   * The same list read page by page at one revision, so it can be written out without holding it
   * whole; undefined for requests `list` answers better (a `limit`, a single-name read).
   */
  listPages?(namespace: string | undefined, request?: ListRequest): Promise<ListPages | undefined>;
  watch(
    namespace: string | undefined,
    request: WatchRequest,
    onEvent: (event: WatchEvent) => void,
    onClose?: (error?: Error) => void,
    flow?: WatchFlowControl,
  ): Promise<ResourceWatch>;
  create(namespace: string | undefined, object: KubeObject, options?: RequestOptions): Promise<KubeObject>;
  /** PUT: a stale `metadata.resourceVersion` fails with Conflict; an empty one is unconditional. */
  update(namespace: string | undefined, name: string, object: KubeObject, options?: RequestOptions): Promise<KubeObject>;
  /**
   * Read-modify-write with retry on conflict (used by PATCH): `mutate` gets the current object and
   * returns the desired one. A resourceVersion set by `mutate` is a precondition.
   */
  guaranteedUpdate(
    namespace: string | undefined,
    name: string,
    mutate: (current: KubeObject) => KubeObject | Promise<KubeObject>,
    options?: RequestOptions,
  ): Promise<KubeObject>;
  delete(namespace: string | undefined, name: string, deleteOptions?: DeleteOptions, options?: RequestOptions): Promise<DeleteResult>;
  /**
   * Admission of a connect request (`pods/exec`, `pods/attach`, `pods/portforward`, `<resource>/proxy`):
   * the chain runs with operation CONNECT and the request's options object (PodExecOptions, ...)
   * as the object, as upstream's connecter handler does, before anything is opened.
   */
  connect?(namespace: string | undefined, name: string, subresource: string, options: KubeObject): Promise<void>;
  /** Absent when the resource serves no DELETE on its collection (405), like namespaces. */
  deleteCollection?(
    namespace: string | undefined,
    request: ListRequest,
    deleteOptions?: DeleteOptions,
    options?: RequestOptions,
  ): Promise<KubeList>;
}
