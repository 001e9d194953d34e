import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configFromKubeconfig, isApiError, KubeClient, type ApiError } from "@kubekit/generic-controlplane/controllers";
import { afterEach, describe, expect, it } from "vitest";
import { mainScript, startBinary, type RunningBinary } from "./binary.test-support.js";

const running: RunningBinary[] = [];
const clients: KubeClient[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  for (const binary of running.splice(0)) await binary.stop();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function start(dir: string): Promise<{ binary: RunningBinary; client: KubeClient }> {
  const kubeconfig = join(dir, "kubeconfig");
  const binary = await startBinary(
    ["--port", "0", "--storage", `sqlite:${join(dir, "state.db")}`, "--kubeconfig", kubeconfig, "--cert-dir", join(dir, "pki"), "--quiet"],
    dir,
  );
  running.push(binary);
  const client = new KubeClient(await configFromKubeconfig(readFileSync(kubeconfig, "utf8")));
  clients.push(client);
  return { binary, client };
}

const WIDGETS = "/apis/hyper.example.com/v1/namespaces/default/widgets";
const CRD = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.hyper.example.com";
const WEBHOOK = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/widget-palette";

const widget = (name: string, color: string, size: number) => ({
  apiVersion: "hyper.example.com/v1",
  kind: "Widget",
  metadata: { name },
  spec: { color, size },
});

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (isApiError(error)) return error;
    throw error;
  }
  throw new Error("the request was admitted");
}

interface Crd {
  metadata: { uid: string; managedFields?: Array<{ manager: string }> };
  status?: { conditions?: Array<{ type: string; status: string }> };
}

describe("kube-hyper-mini binary", () => {
  it("serves the Widget API with its webhook and policy, and converges on its manifest again after a restart on the same storage", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kube-hyper-mini-"));
    dirs.push(dir);
    const first = await start(dir);
    const created = (await first.client.request("POST", WIDGETS, { body: widget("keeper", "red", 2) })) as { metadata: { uid: string } };
    const firstWebhookUrl = ((await first.client.request("GET", WEBHOOK)) as { webhooks: Array<{ clientConfig: { url: string } }> })
      .webhooks[0]!.clientConfig.url;
    const crdUid = ((await first.client.request("GET", CRD)) as Crd).metadata.uid;
    first.binary.child.kill("SIGTERM");
    expect(await first.binary.exited).toBe(0);

    const second = await start(dir);
    const kept = (await second.client.request("GET", `${WIDGETS}/keeper`)) as { metadata: { uid: string }; spec: unknown };
    expect(kept.metadata.uid).toBe(created.metadata.uid);
    expect(kept.spec).toEqual({ color: "red", size: 2 });
    // The same CRD, applied again by the one field manager, still Established.
    const crd = (await second.client.request("GET", CRD)) as Crd;
    expect(crd.metadata.uid).toBe(crdUid);
    expect(crd.metadata.managedFields?.map((entry) => entry.manager)).toContain("kube-hyper-mini");
    expect(crd.status?.conditions?.find((c) => c.type === "Established")?.status).toBe("True");
    // The webhook configuration follows the webhook to its new port, and the webhook answers there.
    const webhookUrl = ((await second.client.request("GET", WEBHOOK)) as { webhooks: Array<{ clientConfig: { url: string } }> })
      .webhooks[0]!.clientConfig.url;
    expect(webhookUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/validate-widgets$/);
    expect(webhookUrl).not.toBe(firstWebhookUrl);
    const offPalette = await refusal(second.client.request("POST", WIDGETS, { body: widget("odd", "chartreuse", 1) }));
    expect(offPalette.code).toBe(403);
    expect(offPalette.message).toContain(
      'admission webhook "palette.hyper.example.com" denied the request: widget color "chartreuse" is not in the palette (red, green, blue)',
    );
    const tooBig = await refusal(second.client.request("POST", WIDGETS, { body: widget("big", "blue", 11) }));
    expect(tooBig.code).toBe(422);
    expect(tooBig.message).toContain(
      "ValidatingAdmissionPolicy 'widget-size-limit' with binding 'widget-size-limit' denied request: size 11 is over the limit of 10",
    );
    // The schema still holds too: a widget needs a size of at least 1.
    const tooSmall = await refusal(second.client.request("POST", WIDGETS, { body: widget("tiny", "blue", 0) }));
    expect(tooSmall.code).toBe(422);
    expect(tooSmall.message).toContain("spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1");
    second.binary.child.kill("SIGINT");
    expect(await second.binary.exited).toBe(0);
  });

  it("rejects an unknown storage spec with a usage message and exit code 2", async () => {
    const child = spawn(process.execPath, [mainScript, "--storage", "etcd:http://127.0.0.1:2379"], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('--storage must be "memory" or "sqlite:<path>", got "etcd:http://127.0.0.1:2379"');
    expect(stderr).toContain("Usage: kube-hyper-mini [flags]");
  });
});
