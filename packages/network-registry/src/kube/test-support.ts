import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import type { ControlPlaneOptions } from "@kubekit/generic-controlplane";
import { startTestPlane, type TestPlane } from "@kubekit/generic-controlplane/testing";
import type { NetworkClaim, ResourceReference } from "../types.js";
import { install as installKana } from "./install.js";

/** A control plane on 127.0.0.1 with the kana manifests installed, and a client on it; for tests. */
export interface KanaPlane {
  test: TestPlane;
  url: string;
  client: KubeClient;
  close(): Promise<void>;
}

/**
 * `options` go to the control plane; the ClusterRoles are installed only when it serves RBAC.
 * `setup.token` authenticates the returned client; `setup.install: false` installs nothing.
 */
export async function startKanaPlane(
  options: ControlPlaneOptions = {},
  setup: { install?: boolean; token?: string } = {},
): Promise<KanaPlane> {
  const test = await startTestPlane(options);
  const client = new KubeClient(setup.token === undefined ? test.url : { server: test.url, token: setup.token });
  const install = setup.install ?? true;
  if (install) await installKana(client, { clusterRoles: options.authorization !== undefined });
  return {
    test,
    url: test.url,
    client,
    async close() {
      client.close();
      await test.close();
    },
  };
}

/** Polls `probe` until it returns a value other than undefined; fails naming `what` after `timeoutMs`. */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last instanceof Error ? `: ${last.message}` : ""}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export const services: ResourceReference = { group: "", resource: "services" };
export const pods: ResourceReference = { group: "", resource: "pods" };

export function claimOf(name: string, ...prefixes: string[]): NetworkClaim {
  return { metadata: { name }, spec: { addressSpace: prefixes.map((prefix) => ({ reference: services, prefix })) } };
}
