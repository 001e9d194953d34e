import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestWebhookServer, type TestWebhookServer } from "../src/admission/plugin/webhooks/test-webhook-server.js";
import { Kubectl, parseTable } from "./harness/kubectl.js";
import { killAllChildren } from "./harness/run.js";
import { startInProcess, type TestServer } from "./harness/server.js";
import { findKubectl132 } from "./harness/tools.js";

let server: TestServer;
let webhook: TestWebhookServer;
let kubectl: Kubectl;

beforeAll(async () => {
  webhook = await startTestWebhookServer({
    "/configmaps": (request) => {
      const data = (request.object as { data?: Record<string, string> } | null)?.data ?? {};
      if (data["webhook-e2e-test"] === "webhook-disallow")
        return { allowed: false, status: { message: "the configmap contains unwanted key and value" } };
      return { allowed: true, warnings: ["configmaps are watched by a webhook"] };
    },
  });
  server = await startInProcess();
  kubectl = new Kubectl(findKubectl132(), server);
}, 60_000);

afterAll(async () => {
  killAllChildren();
  await server?.close();
  await webhook?.close();
});

function manifest(name: string, text: string): string {
  const file = join(server.dir, name);
  writeFileSync(file, text);
  return file;
}

describe("kubectl 1.32 with an admission webhook", () => {
  it("registers a webhook from YAML, lists it, and shows the webhook's denial and warnings", async () => {
    const config = manifest(
      "webhook.yaml",
      `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: e2e-test-webhook-config
webhooks:
  - name: deny-unwanted-configmap-data.k8s.io
    clientConfig:
      url: ${webhook.url}/configmaps
      caBundle: ${webhook.ca.caBundle}
    rules:
      - operations: ["CREATE", "UPDATE"]
        apiGroups: [""]
        apiVersions: ["v1"]
        resources: ["configmaps"]
    sideEffects: None
    admissionReviewVersions: ["v1"]
`,
    );
    expect(await kubectl.ok(["apply", "-f", config])).toBe(
      "validatingwebhookconfiguration.admissionregistration.k8s.io/e2e-test-webhook-config created\n",
    );
    const table = parseTable(await kubectl.ok(["get", "validatingwebhookconfigurations"]));
    expect(table.header).toEqual(["NAME", "WEBHOOKS", "AGE"]);
    expect(table.rows[0]?.slice(0, 2)).toEqual(["e2e-test-webhook-config", "1"]);

    // `create configmap` sends protobuf; the denial comes back as the webhook worded it.
    const denied = await kubectl.run(["create", "configmap", "disallowed", "--from-literal=webhook-e2e-test=webhook-disallow"]);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toBe(
      'error: failed to create configmap: admission webhook "deny-unwanted-configmap-data.k8s.io" denied the request: the configmap contains unwanted key and value\n',
    );

    const applied = await kubectl.run([
      "apply",
      "-f",
      manifest("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: disallowed\ndata:\n  webhook-e2e-test: webhook-disallow\n"),
    ]);
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain(
      'admission webhook "deny-unwanted-configmap-data.k8s.io" denied the request: the configmap contains unwanted key and value',
    );

    const allowed = await kubectl.run(["create", "configmap", "allowed", "--from-literal=a=b"]);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toBe("configmap/allowed created\n");
    expect(allowed.stderr).toBe("Warning: configmaps are watched by a webhook\n");

    expect(await kubectl.ok(["delete", "validatingwebhookconfiguration", "e2e-test-webhook-config"])).toBe(
      'validatingwebhookconfiguration.admissionregistration.k8s.io "e2e-test-webhook-config" deleted\n',
    );
    expect((await kubectl.run(["create", "configmap", "disallowed", "--from-literal=webhook-e2e-test=webhook-disallow"])).code).toBe(0);
  }, 120_000);
});
