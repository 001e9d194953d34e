/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read arbitrary JSON responses */
import { afterEach, describe, expect, it } from "vitest";
import { configMap, startTestPlane, type TestPlane } from "../src/server/test-support.js";
import { createMemoryStorage } from "../src/storage/memory.js";
import type { Storage } from "../src/storage/types.js";

const ADMISSION_REGISTRATION = "/apis/admissionregistration.k8s.io/v1";

/** A memory storage that counts list and get calls under the admission configuration resources. */
function countingStorage(): { storage: Storage; configurationReads: () => number } {
  const storage = createMemoryStorage();
  let reads = 0;
  const configuration = (key: string) => key.startsWith("/registry/admissionregistration.k8s.io/");
  const list = storage.list.bind(storage);
  const get = storage.get.bind(storage);
  storage.list = (prefix, options) => {
    if (configuration(prefix)) reads++;
    return list(prefix, options);
  };
  storage.get = (key, options) => {
    if (configuration(key)) reads++;
    return get(key, options);
  };
  return { storage, configurationReads: () => reads };
}

/** A memory storage whose watches deliver each batch `lagMs` late, as a watch on a remote store lags its writes. */
function laggingStorage(lagMs: number): Storage {
  const storage = createMemoryStorage();
  const watch = storage.watch.bind(storage);
  storage.watch = (prefix, options) =>
    watch(prefix, { ...options, onEvents: (events) => void setTimeout(() => options.onEvents(events), lagMs) });
  return storage;
}

const denyLabelled = {
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingAdmissionPolicy",
  metadata: { name: "no-blocked" },
  spec: {
    failurePolicy: "Fail",
    matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }] },
    validations: [{ expression: "!has(object.metadata.labels) || !('blocked' in object.metadata.labels)", message: "blocked" }],
  },
};

const binding = {
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingAdmissionPolicyBinding",
  metadata: { name: "no-blocked" },
  spec: { policyName: "no-blocked", validationActions: ["Deny"] },
};

/** A webhook nobody listens on, failing closed: while it is configured, every configmap create fails. */
const unreachableWebhook = {
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingWebhookConfiguration",
  metadata: { name: "unreachable" },
  webhooks: [
    {
      name: "unreachable.example.com",
      clientConfig: { url: "https://127.0.0.1:1/validate" },
      rules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }],
      failurePolicy: "Fail",
      sideEffects: "None",
      admissionReviewVersions: ["v1"],
      timeoutSeconds: 2,
    },
  ],
};

let t: TestPlane | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe("admission configuration caches", { timeout: 60_000 }, () => {
  it("a binding applies to the very next write after its create returned, and stops applying after its delete returned", async () => {
    t = await startTestPlane({ storage: laggingStorage(20) });
    expect((await t.call("POST", `${ADMISSION_REGISTRATION}/validatingadmissionpolicies`, { body: denyLabelled })).status).toBe(201);
    // Warm the caches, so each round below reads a running cache.
    expect(
      (await t.call("POST", "/api/v1/namespaces/default/configmaps", { body: configMap("warm", { a: "1" }, { blocked: "yes" }) })).status,
    ).toBe(201);
    for (let i = 0; i < 25; i++) {
      expect((await t.call("POST", `${ADMISSION_REGISTRATION}/validatingadmissionpolicybindings`, { body: binding })).status).toBe(201);
      const denied = await t.call("POST", "/api/v1/namespaces/default/configmaps", {
        body: configMap(`denied-${i}`, { a: "1" }, { blocked: "yes" }),
      });
      expect(denied.status).toBe(422);
      expect(denied.json.message).toBe(
        `configmaps "denied-${i}" is forbidden: ValidatingAdmissionPolicy 'no-blocked' with binding 'no-blocked' denied request: blocked`,
      );
      expect((await t.call("DELETE", `${ADMISSION_REGISTRATION}/validatingadmissionpolicybindings/no-blocked`)).status).toBe(200);
      expect(
        (
          await t.call("POST", "/api/v1/namespaces/default/configmaps", {
            body: configMap(`admitted-${i}`, { a: "1" }, { blocked: "yes" }),
          })
        ).status,
      ).toBe(201);
    }
  });

  it("a webhook configuration applies to the very next write after its create returned, and stops after its delete returned", async () => {
    t = await startTestPlane({ storage: laggingStorage(20) });
    expect((await t.call("POST", "/api/v1/namespaces/default/configmaps", { body: configMap("warm") })).status).toBe(201);
    for (let i = 0; i < 10; i++) {
      expect((await t.call("POST", `${ADMISSION_REGISTRATION}/validatingwebhookconfigurations`, { body: unreachableWebhook })).status).toBe(
        201,
      );
      const failed = await t.call("POST", "/api/v1/namespaces/default/configmaps", { body: configMap(`refused-${i}`) });
      expect(failed.status).toBe(500);
      expect(failed.json.message).toContain('failed calling webhook "unreachable.example.com"');
      expect((await t.call("DELETE", `${ADMISSION_REGISTRATION}/validatingwebhookconfigurations/unreachable`)).status).toBe(200);
      expect((await t.call("POST", "/api/v1/namespaces/default/configmaps", { body: configMap(`admitted-${i}`) })).status).toBe(201);
    }
  });

  it("writes read no admission configuration from storage once the caches run", async () => {
    const { storage, configurationReads } = countingStorage();
    t = await startTestPlane({ storage });
    expect((await t.call("POST", `${ADMISSION_REGISTRATION}/validatingadmissionpolicies`, { body: denyLabelled })).status).toBe(201);
    expect((await t.call("POST", `${ADMISSION_REGISTRATION}/validatingadmissionpolicybindings`, { body: binding })).status).toBe(201);
    expect((await t.call("POST", "/api/v1/namespaces/default/configmaps", { body: configMap("warm") })).status).toBe(201);
    const before = configurationReads();
    for (let i = 0; i < 20; i++) {
      expect((await t.call("POST", "/api/v1/namespaces/default/configmaps", { body: configMap(`c-${i}`) })).status).toBe(201);
      expect((await t.call("PUT", `/api/v1/namespaces/default/configmaps/c-${i}`, { body: configMap(`c-${i}`, { a: "2" }) })).status).toBe(
        200,
      );
    }
    expect(configurationReads()).toBe(before);
  });
});
