import type { KubeObject } from "../../api/types.js";
import { isApiError, type ResourceRef } from "../client.js";
import { NAMESPACES } from "../namespace/deleter.js";
import { controllerFor } from "../builder.js";
import type { Controller } from "../runtime.js";

export const CONFIG_MAPS: ResourceRef = { group: "", version: "v1", resource: "configmaps", namespaced: true };

/** The ConfigMap every namespace gets (upstream `RootCACertConfigMapName`). */
export const ROOT_CA_CONFIG_MAP = "kube-root-ca.crt";
const DESCRIPTION_ANNOTATION = "kubernetes.io/description";
const DESCRIPTION =
  "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. " +
  "No other usage is guaranteed across distributions of Kubernetes clusters.";

export interface RootCACertPublisherOptions {
  /** The PEM bundle clients verify the API server with (kube-controller-manager's `--root-ca-file`). */
  rootCA: string;
  workers?: number;
}

type ConfigMap = KubeObject & { data?: Record<string, string> };

/**
 * Keeps the `kube-root-ca.crt` ConfigMap in every namespace holding the cluster's CA under
 * `ca.crt`: created for a new namespace, re-created when deleted, and put back when its data or
 * description is edited (upstream `pkg/controller/certificates/rootcacertpublisher`).
 */
export function rootCACertPublisher(options: RootCACertPublisherOptions): Controller {
  const data = { "ca.crt": options.rootCA };
  return controllerFor(NAMESPACES, {
    handlers: ({ queue }) => ({
      add: (ns) => queue.add(ns.metadata?.name ?? ""),
      update: (_old, ns) => {
        if ((ns as { status?: { phase?: string } }).status?.phase === "Active") queue.add(ns.metadata?.name ?? "");
      },
    }),
  })
    .named("root-ca-cert-publisher")
    .watches(CONFIG_MAPS, (cm) => (cm.metadata?.name === ROOT_CA_CONFIG_MAP ? (cm.metadata.namespace ?? "") : undefined), {
      on: ["update", "delete"],
    })
    .withOptions({ workers: options.workers ?? 1, queueName: "root_ca_cert_publisher" })
    .complete(async (namespace, { informer, client }) => {
      if (namespace === "") return;
      const existing = informer(CONFIG_MAPS).cache.get(`${namespace}/${ROOT_CA_CONFIG_MAP}`) as ConfigMap | undefined;
      if (existing === undefined) {
        try {
          await client.create(CONFIG_MAPS, namespace, {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: ROOT_CA_CONFIG_MAP, namespace, annotations: { [DESCRIPTION_ANNOTATION]: DESCRIPTION } },
            data,
          });
        } catch (error) {
          // A namespace gone or terminating takes no new objects: nothing to retry.
          if (isApiError(error) && error.code === 404) return;
          if (isApiError(error) && error.status?.details?.causes?.some((c) => c.reason === "NamespaceTerminating")) return;
          throw error;
        }
        return;
      }
      const annotations = existing.metadata?.annotations ?? {};
      const described = Object.hasOwn(annotations, DESCRIPTION_ANNOTATION) && annotations[DESCRIPTION_ANNOTATION] !== "";
      if (described && sameData(existing.data, data)) return;
      await client.update(CONFIG_MAPS, namespace, {
        ...existing,
        metadata: { ...existing.metadata, annotations: { ...annotations, [DESCRIPTION_ANNOTATION]: DESCRIPTION } },
        data,
      });
    });
}

function sameData(actual: Record<string, string> | undefined, wanted: Record<string, string>): boolean {
  const keys = Object.keys(actual ?? {});
  return keys.length === Object.keys(wanted).length && keys.every((key) => Object.hasOwn(wanted, key) && wanted[key] === actual![key]);
}
