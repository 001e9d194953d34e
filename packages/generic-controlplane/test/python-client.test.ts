import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { killAllChildren, run } from "./harness/run.js";
import { startInProcess, type TestServer } from "./harness/server.js";
import { findPython } from "./harness/tools.js";

// The Debian python3-kubernetes client (22.6) running ports of its own e2e tests. Each port gets a
// fresh server: test_watch_configmaps deletes every configmap in `default` and counts the events.
async function runPort(file: string): Promise<void> {
  const python = findPython();
  const server: TestServer = await startInProcess();
  try {
    const result = await run(python, [join(import.meta.dirname, "python", file)], {
      env: { E2E_KUBECONFIG: server.kubeconfigPath, PYTHONDONTWRITEBYTECODE: "1" },
      timeoutMs: 60_000,
    });
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
  } finally {
    await server.close();
  }
}

describe("python kubernetes client e2e ports", () => {
  beforeAll(() => {
    findPython();
  });
  afterAll(() => killAllChildren());

  it("test_configmap_apis", async () => {
    await runPort("test_configmap_apis.py");
  }, 90_000);

  it("test_watch_configmaps", async () => {
    await runPort("test_watch_configmaps.py");
  }, 90_000);

  it("test_utils: create_from_yaml for namespaces, a NamespaceList and a conflicting multi-document file", async () => {
    await runPort("test_create_from_yaml.py");
  }, 90_000);

  it("custom objects: a CRD through ApiextensionsV1Api, CRUD, status and scale through CustomObjectsApi", async () => {
    await runPort("test_custom_objects.py");
  }, 90_000);
});
