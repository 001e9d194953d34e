import type { KubeObject } from "../api/types.js";
import type { RequestOptions, ResourceStore, ResourceWatch } from "../registry/types.js";
import { storePolicySource, type RbacStores } from "./policy-stores.js";
import type { PolicySource } from "./rule-resolver.js";
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from "./types.js";

/**
 * The policy the authorizer reads on every request, kept in memory (upstream reads it from
 * informer caches). Every write through this server's RBAC stores drops the cache before it
 * answers, so a request right after a write sees it; a watch on each store drops it for writes
 * other servers make to shared storage.
 */
export class PolicyCache implements PolicySource {
  readonly #source: PolicySource;
  #generation = 0;
  #clusterRoleBindings: ClusterRoleBinding[] | undefined;
  readonly #roleBindings = new Map<string, RoleBinding[]>();
  readonly #clusterRoles = new Map<string, ClusterRole | undefined>();
  readonly #roles = new Map<string, Role | undefined>();
  readonly #watches: ResourceWatch[] = [];

  /** `stores` are the plain stores; use `stores` of the cache for every write so it is dropped in time. */
  readonly stores: RbacStores;

  constructor(raw: RbacStores) {
    this.#source = storePolicySource(raw);
    const invalidate = () => this.invalidate();
    this.stores = {
      roles: invalidating(raw.roles, invalidate),
      clusterRoles: invalidating(raw.clusterRoles, invalidate),
      roleBindings: invalidating(raw.roleBindings, invalidate),
      clusterRoleBindings: invalidating(raw.clusterRoleBindings, invalidate),
    };
  }

  /** Follows changes made elsewhere (another server on the same storage). */
  async start(): Promise<void> {
    for (const store of Object.values(this.stores) as ResourceStore[]) {
      const revision = (await store.list(undefined, { limit: 1 })).metadata.resourceVersion;
      this.#watches.push(
        await store.watch(undefined, revision === undefined ? {} : { resourceVersion: revision }, () => this.invalidate()),
      );
    }
  }

  stop(): void {
    for (const watch of this.#watches.splice(0)) watch.stop();
  }

  invalidate(): void {
    this.#generation++;
    this.#clusterRoleBindings = undefined;
    this.#roleBindings.clear();
    this.#clusterRoles.clear();
    this.#roles.clear();
  }

  /** Reads through, keeping the answer only when no write happened meanwhile. */
  async #read<T>(cached: () => T | undefined, has: () => boolean, read: () => Promise<T>, keep: (value: T) => void): Promise<T> {
    if (has()) return cached() as T;
    const generation = this.#generation;
    const value = await read();
    if (generation === this.#generation) keep(value);
    return value;
  }

  listClusterRoleBindings(): Promise<ClusterRoleBinding[]> {
    return this.#read(
      () => this.#clusterRoleBindings,
      () => this.#clusterRoleBindings !== undefined,
      () => this.#source.listClusterRoleBindings(),
      (v) => (this.#clusterRoleBindings = v),
    );
  }

  listRoleBindings(namespace: string): Promise<RoleBinding[]> {
    return this.#read(
      () => this.#roleBindings.get(namespace),
      () => this.#roleBindings.has(namespace),
      () => this.#source.listRoleBindings(namespace),
      (v) => this.#roleBindings.set(namespace, v),
    );
  }

  getClusterRole(name: string): Promise<ClusterRole | undefined> {
    return this.#read(
      () => this.#clusterRoles.get(name),
      () => this.#clusterRoles.has(name),
      () => this.#source.getClusterRole(name),
      (v) => this.#clusterRoles.set(name, v),
    );
  }

  getRole(namespace: string, name: string): Promise<Role | undefined> {
    const key = `${namespace}/${name}`;
    return this.#read(
      () => this.#roles.get(key),
      () => this.#roles.has(key),
      () => this.#source.getRole(namespace, name),
      (v) => this.#roles.set(key, v),
    );
  }
}

/** A store that calls `invalidate` after every write, successful or not (a failed write may still have landed). */
function invalidating(store: ResourceStore, invalidate: () => void): ResourceStore {
  const after = async <T>(write: Promise<T>): Promise<T> => {
    try {
      return await write;
    } finally {
      invalidate();
    }
  };
  return {
    get definition() {
      return store.definition;
    },
    get: (namespace, name) => store.get(namespace, name),
    list: (namespace, request) => store.list(namespace, request),
    ...(store.listPages ? { listPages: store.listPages.bind(store) } : {}),
    watch: (...args) => store.watch(...args),
    create: (namespace, object: KubeObject, options?: RequestOptions) => after(store.create(namespace, object, options)),
    update: (namespace, name, object, options) => after(store.update(namespace, name, object, options)),
    guaranteedUpdate: (namespace, name, mutate, options) => after(store.guaranteedUpdate(namespace, name, mutate, options)),
    delete: (namespace, name, deleteOptions, options) => after(store.delete(namespace, name, deleteOptions, options)),
    ...(store.deleteCollection
      ? {
          deleteCollection: (namespace, request, deleteOptions, options) =>
            after(store.deleteCollection!(namespace, request, deleteOptions, options)),
        }
      : {}),
  };
}
