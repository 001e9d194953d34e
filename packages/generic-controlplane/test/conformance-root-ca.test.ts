import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSecurePlane, type SecurePlane } from "../src/authn/test-support.js";

// Port of "[sig-auth] ServiceAccounts should guarantee kube-root-ca.crt exist in any namespace
// [Conformance]" (test/e2e/auth/service_accounts.go), keeping upstream's steps and assertions:
// the ConfigMap is created automatically, recreated if deleted, and reconciled if modified. The
// control plane serves HTTPS, so it has a CA to publish; its controllers run as by default.

const rootCAConfigMapName = "kube-root-ca.crt";
const pollIntervalMs = 500;
// wait.ForeverTestTimeout
const foreverTestTimeoutMs = 30_000;

let secure: SecurePlane;

beforeAll(async () => {
  secure = await startSecurePlane({ controllers: true });
}, 60_000);

afterAll(async () => {
  await secure?.close();
});

/** wait.Poll: `condition` answers true (done), false (retry) or throws (fail). */
async function poll(condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + foreverTestTimeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error("timed out waiting for the condition");
    await new Promise((resolve) => setTimeout(resolve, pollIntervalMs));
  }
}

function configMapPath(namespace: string, name = rootCAConfigMapName): string {
  return `/api/v1/namespaces/${namespace}/configmaps/${name}`;
}

/** The ConfigMap, or undefined on NotFound; any other answer fails as upstream's `return false, err`. */
async function getRootCAConfigMap(namespace: string): Promise<{ data?: Record<string, string> } | undefined> {
  const answer = await secure.asAdmin("GET", configMapPath(namespace));
  if (answer.status === 404) return undefined;
  if (answer.status !== 200) throw new Error(`GET ${rootCAConfigMapName}: ${answer.status} ${answer.text}`);
  return answer.json as { data?: Record<string, string> };
}

describe("[sig-auth] ServiceAccounts", () => {
  it("should guarantee kube-root-ca.crt exist in any namespace", async () => {
    // The framework's per-test namespace.
    const namespace = `svcaccounts-${Math.random().toString(36).slice(2, 7)}`;
    expect(
      (await secure.asAdmin("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } })).status,
    ).toBe(201);

    await poll(async () => (await getRootCAConfigMap(namespace)) !== undefined);

    const deleted = await secure.asAdmin("DELETE", `${configMapPath(namespace)}?gracePeriodSeconds=0`);
    expect(deleted.status).toBe(200);

    await poll(async () => (await getRootCAConfigMap(namespace)) !== undefined);

    const updated = await secure.asAdmin("PUT", configMapPath(namespace), {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: rootCAConfigMapName },
      data: { "ca.crt": "" },
    });
    expect(updated.status).toBe(200);

    await poll(async () => {
      const cm = await getRootCAConfigMap(namespace);
      if (cm === undefined) return false;
      const value = cm.data !== undefined && Object.hasOwn(cm.data, "ca.crt") ? cm.data["ca.crt"] : undefined;
      return value !== undefined && value !== "";
    });

    // Beyond upstream: what is published is the CA the admin kubeconfig trusts.
    expect((await getRootCAConfigMap(namespace))?.data?.["ca.crt"]).toBe(secure.ca.cert);
  }, 120_000);
});
