import type { KubeObject } from "@kubekit/generic-controlplane";
import { resourcePath, type KubeClient, type ResourceRef } from "@kubekit/generic-controlplane/controllers";
import { NetworkRegistryError } from "../errors.js";
import { installManifests, type InstallManifestOptions } from "./manifests.js";

const RESOURCES: Record<string, string> = {
  CustomResourceDefinition: "customresourcedefinitions",
  ValidatingAdmissionPolicy: "validatingadmissionpolicies",
  ValidatingAdmissionPolicyBinding: "validatingadmissionpolicybindings",
  ClusterRole: "clusterroles",
  ClusterRoleBinding: "clusterrolebindings",
};

function refOf(object: KubeObject): ResourceRef {
  const [group, version] = object.apiVersion!.split("/") as [string, string];
  return { group, version, resource: RESOURCES[object.kind!]!, namespaced: false };
}

export interface InstallOptions extends InstallManifestOptions {
  /** Also apply the ClusterRoles and the arbiter's binding (default true; off for a server that does not serve RBAC). */
  clusterRoles?: boolean;
  /** How long to wait for the CRDs to be Established (default 30 s). */
  timeoutMs?: number;
}

/** The field manager the installation applies as. */
const INSTALL_FIELD_MANAGER = "kana-install";

/** Server-side apply, forced: the installation owns what its manifests set, as `kubectl apply --server-side --force-conflicts`. */
function applyObject(client: KubeClient, ref: ResourceRef, object: KubeObject): Promise<KubeObject> {
  return client.request("PATCH", resourcePath(ref, undefined, object.metadata!.name), {
    body: object,
    contentType: "application/apply-patch+yaml",
    query: { fieldManager: INSTALL_FIELD_MANAGER, force: true },
  }) as Promise<KubeObject>;
}

/**
 * Server-side apply every object of {@link installManifests} and wait until both CRDs are
 * Established; running it again updates an installation. Errors are `api-error`, or `timeout`.
 */
export async function install(client: KubeClient, options: InstallOptions = {}): Promise<KubeObject[]> {
  const applied: KubeObject[] = [];
  for (const object of installManifests(options)) {
    if ((object.kind === "ClusterRole" || object.kind === "ClusterRoleBinding") && options.clusterRoles === false) continue;
    const ref = refOf(object);
    try {
      applied.push(await applyObject(client, ref, object));
    } catch (error) {
      throw new NetworkRegistryError(
        "api-error",
        `applying ${object.kind} ${object.metadata!.name}: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
  }
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (const crd of applied.filter((o) => o.kind === "CustomResourceDefinition")) {
    for (;;) {
      const current = await client.get(refOf(crd), undefined, crd.metadata!.name!);
      const conditions = (current["status"] as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? [];
      if (conditions.some((c) => c.type === "Established" && c.status === "True")) break;
      if (Date.now() > deadline)
        throw new NetworkRegistryError("timeout", `CustomResourceDefinition ${crd.metadata!.name} is not Established`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return applied;
}
