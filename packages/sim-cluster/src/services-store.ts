import type { KubeObject } from "@kubekit/generic-controlplane";
import type { ResourceStore } from "@kubekit/generic-controlplane/registry";
import { resyncAllocations, type Service, type ServiceAllocators } from "./resources/services.js";

/**
 * The services store with upstream's repair loop built in: the strategy takes addresses while
 * a write is validated, and once no service write is in flight the allocators are rebuilt from
 * what is stored. That frees the addresses of deleted services and of writes that failed after
 * validation (a name already taken, a dry run), without the store having to report them.
 */
export function repairingServiceStore(inner: ResourceStore, allocators: ServiceAllocators): ResourceStore & { resync(): Promise<void> } {
  let inFlight = 0;
  const resync = async (): Promise<void> => {
    const services = (await inner.list(undefined)).items as Service[];
    // A write that began during the list has taken addresses the list does not show yet.
    if (inFlight === 0) resyncAllocations(services, allocators);
  };
  const write = async <T>(run: () => Promise<T>): Promise<T> => {
    inFlight++;
    try {
      return await run();
    } finally {
      inFlight--;
      if (inFlight === 0) await resync();
    }
  };
  return {
    definition: inner.definition,
    resync,
    get: (namespace, name) => inner.get(namespace, name),
    list: (namespace, request) => inner.list(namespace, request),
    ...(inner.listPages !== undefined
      ? {
          listPages: (namespace: string | undefined, request?: Parameters<NonNullable<ResourceStore["listPages"]>>[1]) =>
            inner.listPages!(namespace, request),
        }
      : {}),
    watch: (namespace, request, onEvent, onClose, flow) => inner.watch(namespace, request, onEvent, onClose, flow),
    create: (namespace, object, options) => write(() => inner.create(namespace, object, options)),
    update: (namespace, name, object, options) => write(() => inner.update(namespace, name, object, options)),
    guaranteedUpdate: (namespace, name, mutate: (current: KubeObject) => KubeObject | Promise<KubeObject>, options) =>
      write(() => inner.guaranteedUpdate(namespace, name, mutate, options)),
    delete: (namespace, name, deleteOptions, options) => write(() => inner.delete(namespace, name, deleteOptions, options)),
    ...(inner.deleteCollection !== undefined
      ? {
          deleteCollection: (...args: Parameters<NonNullable<ResourceStore["deleteCollection"]>>) =>
            write(() => inner.deleteCollection!(...args)),
        }
      : {}),
  };
}
