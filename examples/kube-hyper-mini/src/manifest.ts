import { readFileSync } from "node:fs";
import type { KubeObject } from "@kubekit/generic-controlplane";
import type { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { parseAllDocuments } from "yaml";
import type { PaletteWebhook } from "./palette-webhook.js";

/** The manifest the binary applies at start, shipped beside dist/. */
export const MANIFEST_PATH = new URL("../manifests/hyper-mini.yaml", import.meta.url);

/** The field manager that owns what the binary applies. */
export const FIELD_MANAGER = "kube-hyper-mini";

/** The cluster-scoped kinds the manifest holds, and their collections. */
const COLLECTIONS: Record<string, string> = {
  "apiextensions.k8s.io/v1/CustomResourceDefinition": "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
  "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy": "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies",
  "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding":
    "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings",
  "admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration": "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
};

/** The manifest's objects, with every webhook of a ValidatingWebhookConfiguration pointed at `webhook`. */
export function manifestObjects(text: string, webhook: Pick<PaletteWebhook, "url" | "caBundle">): KubeObject[] {
  return parseAllDocuments(text).map((document) => {
    if (document.errors.length > 0) throw new Error(`${MANIFEST_PATH.pathname}: ${document.errors[0]!.message}`);
    const object = document.toJS() as KubeObject & { webhooks?: Array<Record<string, unknown>> };
    if (object.kind === "ValidatingWebhookConfiguration") {
      for (const hook of object.webhooks ?? []) hook.clientConfig = { url: webhook.url, caBundle: webhook.caBundle };
    }
    return object;
  });
}

/**
 * Server-side applies the manifest with `force`, so every start converges on it: the first
 * creates the objects, later ones change only what differs (the webhook's new port and CA).
 * Waits for the CRD to be Established, so the API is served once this returns.
 */
export async function applyManifest(client: KubeClient, objects: readonly KubeObject[], timeoutMs = 10_000): Promise<void> {
  for (const object of objects) {
    const collection = COLLECTIONS[`${object.apiVersion}/${object.kind}`];
    if (collection === undefined)
      throw new Error(`${MANIFEST_PATH.pathname}: kube-hyper-mini does not apply ${object.apiVersion} ${object.kind}`);
    const path = `${collection}/${encodeURIComponent(object.metadata?.name ?? "")}`;
    await client.request("PATCH", path, {
      query: { fieldManager: FIELD_MANAGER, force: true },
      body: object,
      contentType: "application/apply-patch+yaml",
    });
    if (object.kind === "CustomResourceDefinition") await waitEstablished(client, path, timeoutMs);
  }
}

async function waitEstablished(client: KubeClient, path: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const crd = (await client.request("GET", path)) as { status?: { conditions?: Array<{ type: string; status: string }> } };
    if (crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True")) return;
    if (Date.now() > deadline) throw new Error(`${path} was not Established within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export function readManifest(): string {
  return readFileSync(MANIFEST_PATH, "utf8");
}
