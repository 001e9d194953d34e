import { selectBuiltinResources } from "@kubekit/generic-controlplane";
import { KubeClient, type ResourceRef } from "@kubekit/generic-controlplane/controllers";
import { startTestPlane, type TestPlane } from "@kubekit/generic-controlplane/testing";
import { nodesResource } from "@kubekit/sim-cluster";
import { eventually } from "../test-support.js";

/** Test support: a control plane that serves Nodes (and, on request, ServiceCIDRs), plus a client. */

export const NODES: ResourceRef = { group: "", version: "v1", resource: "nodes", namespaced: false };
export const SERVICE_CIDRS: ResourceRef = { group: "networking.k8s.io", version: "v1", resource: "servicecidrs", namespaced: false };
const CRDS: ResourceRef = { group: "apiextensions.k8s.io", version: "v1", resource: "customresourcedefinitions", namespaced: false };

export interface KubeTestCluster {
  plane: TestPlane;
  client: KubeClient;
  close(): Promise<void>;
}

/** Starts a control plane on 127.0.0.1 serving the built-ins and Nodes. */
export async function startKubeTestCluster(): Promise<KubeTestCluster> {
  const plane = await startTestPlane({ resources: [...selectBuiltinResources(), nodesResource] });
  const client = new KubeClient({ server: plane.url });
  return {
    plane,
    client,
    close: async () => {
      client.close();
      await plane.close();
    },
  };
}

/**
 * Serves `networking.k8s.io/v1` ServiceCIDRs, as a server with KEP-1880 enabled does (here as a
 * custom resource with upstream's fields), and waits until discovery lists them.
 */
export async function serveServiceCIDRs(client: KubeClient): Promise<void> {
  await client.create(CRDS, undefined, {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: {
      name: "servicecidrs.networking.k8s.io",
      annotations: { "api-approved.kubernetes.io": "https://github.com/kubernetes/enhancements/pull/1881" },
    },
    spec: {
      group: "networking.k8s.io",
      scope: "Cluster",
      names: { plural: "servicecidrs", singular: "servicecidr", kind: "ServiceCIDR", listKind: "ServiceCIDRList" },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: { spec: { type: "object", properties: { cidrs: { type: "array", items: { type: "string" } } } } },
            },
          },
        },
      ],
    },
  });
  await eventually("ServiceCIDRs to be served", async () => {
    const list = (await client.request("GET", "/apis/networking.k8s.io/v1")) as { resources?: { name: string }[] };
    return list.resources?.some((r) => r.name === "servicecidrs") === true ? true : undefined;
  });
}

export function node(
  name: string,
  podCIDRs?: string[],
): { apiVersion: string; kind: string; metadata: { name: string }; spec: Record<string, unknown> } {
  return { apiVersion: "v1", kind: "Node", metadata: { name }, spec: podCIDRs === undefined ? {} : { podCIDR: podCIDRs[0], podCIDRs } };
}

export function serviceCIDR(
  name: string,
  cidrs: string[],
): { apiVersion: string; kind: string; metadata: { name: string }; spec: { cidrs: string[] } } {
  return { apiVersion: "networking.k8s.io/v1", kind: "ServiceCIDR", metadata: { name }, spec: { cidrs } };
}
