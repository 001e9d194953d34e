import { controllerFor, isNotFound, splitKey, type Controller } from "@kubekit/generic-controlplane/controllers";
import { ENDPOINT_SLICES, LABEL_MANAGED_BY, LABEL_SERVICE_NAME, type EndpointSlice } from "../resources/endpoint-slices.js";
import type { Service } from "../resources/services.js";
import { NODES, PODS, SERVICES } from "../refs.js";
import { hasManagedEndpoints, podsOf, servicesOfPods } from "./endpoints-util.js";
import {
  addressTypesFor,
  desiredGroups,
  ENDPOINTSLICE_CONTROLLER_NAME,
  LABEL_ZONE,
  MAX_ENDPOINTS_PER_SLICE,
  reconcileSlices,
  type SliceChanges,
} from "./endpointslice-reconcile.js";
import { ownerReferenceTo } from "./util.js";

function resourceVersionAtLeast(have: string | undefined, want: string): boolean {
  if (have === undefined) return false;
  try {
    return BigInt(have) >= BigInt(want);
  } catch {
    return have === want;
  }
}

/**
 * The EndpointSlice controller (upstream `pkg/controller/endpointslice`): for every Service
 * with a selector, EndpointSlices of each address type it has (IPv4, IPv6: its `ipFamilies`) of at most `maxEndpointsPerSlice` endpoints grouped by
 * resolved port set, labelled `kubernetes.io/service-name` and
 * `endpointslice.kubernetes.io/managed-by`, owned by the Service (the garbage collector removes
 * them with it). Terminating pods stay as terminating endpoints. Like upstream's slice tracker, a
 * service whose last writes the cache does not show yet waits for them.
 */
export function endpointSliceController(options: { workers?: number; maxEndpointsPerSlice?: number } = {}): Controller {
  return (
    controllerFor<Map<string, Map<string, string | undefined>>>(SERVICES)
      .named("endpointslice")
      .watches(PODS, { handlers: servicesOfPods })
      .watches(ENDPOINT_SLICES, (slice) => {
        const labels = slice.metadata?.labels ?? {};
        return labels[LABEL_MANAGED_BY] === ENDPOINTSLICE_CONTROLLER_NAME && labels[LABEL_SERVICE_NAME]
          ? `${slice.metadata?.namespace ?? ""}/${labels[LABEL_SERVICE_NAME]}`
          : undefined;
      })
      .watches(NODES, {
        handlers: ({ queue, primary: services }) => ({
          update: (old, node) => {
            if (old.metadata?.labels?.[LABEL_ZONE] === node.metadata?.labels?.[LABEL_ZONE]) return;
            for (const service of services.cache.list()) queue.add(`${service.metadata?.namespace ?? ""}/${service.metadata?.name ?? ""}`);
          },
        }),
      })
      // Per service, the slices written last and the resourceVersion each must reach in the cache (undefined: deleted).
      .withState(() => new Map<string, Map<string, string | undefined>>())
      .withOptions({ workers: options.workers ?? 2, queueName: "endpoint_slice" })
      .complete(async (key, { client, primary: services, informer, state: written }) => {
        const pods = informer(PODS);
        const nodes = informer(NODES);
        const slices = informer(ENDPOINT_SLICES);
        const cacheShows = (namespace: string | undefined, expected: Map<string, string | undefined>): boolean => {
          for (const [name, rv] of expected) {
            const cached = slices.cache.get(`${namespace ?? ""}/${name}`);
            if (rv === undefined ? cached !== undefined : !resourceVersionAtLeast(cached?.metadata?.resourceVersion, rv)) return false;
          }
          return true;
        };
        const { namespace, name } = splitKey(key);
        const service = services.cache.get(key) as Service | undefined;
        // A deleted service's slices go with it through their owner reference.
        if (service === undefined || !hasManagedEndpoints(service)) {
          written.delete(key);
          return;
        }
        const expected = written.get(key);
        if (expected !== undefined && !cacheShows(namespace, expected)) return { requeueAfterMs: 100 };
        written.delete(key);
        const existing = (slices.cache.list() as EndpointSlice[]).filter(
          (s) =>
            s.metadata?.namespace === namespace &&
            s.metadata?.labels?.[LABEL_SERVICE_NAME] === name &&
            s.metadata?.labels?.[LABEL_MANAGED_BY] === ENDPOINTSLICE_CONTROLLER_NAME,
        );
        // One set of slices per address type the service has; slices of a type it no longer has go.
        const types = addressTypesFor(service);
        const selected = podsOf(service, pods);
        const owner = ownerReferenceTo(service, "v1", "Service");
        const changes: SliceChanges = {
          create: [],
          update: [],
          delete: existing.filter((s) => !(types as string[]).includes(s.addressType ?? "")),
        };
        for (const type of types) {
          const groups = desiredGroups(service, selected, (node) => nodes.cache.get(node), type);
          const ofType = reconcileSlices(
            service,
            owner,
            groups,
            existing.filter((s) => s.addressType === type),
            options.maxEndpointsPerSlice ?? MAX_ENDPOINTS_PER_SLICE,
            type,
          );
          changes.create.push(...ofType.create);
          changes.update.push(...ofType.update);
          changes.delete.push(...ofType.delete);
        }
        const marks = new Map<string, string | undefined>();
        try {
          await Promise.all([
            ...changes.create.map(async (slice) => {
              const created = await client.create(ENDPOINT_SLICES, namespace, slice);
              marks.set(created.metadata?.name ?? "", created.metadata?.resourceVersion ?? "");
            }),
            ...changes.update.map(async (slice) => {
              const updated = await client.update(ENDPOINT_SLICES, namespace, slice);
              marks.set(updated.metadata?.name ?? "", updated.metadata?.resourceVersion ?? "");
            }),
            ...changes.delete.map(async (slice) => {
              await client.delete(ENDPOINT_SLICES, namespace, slice.metadata?.name ?? "").catch((error: unknown) => {
                if (!isNotFound(error)) throw error;
              });
              marks.set(slice.metadata?.name ?? "", undefined);
            }),
          ]);
        } finally {
          if (marks.size > 0) written.set(key, marks);
        }
      })
  );
}
