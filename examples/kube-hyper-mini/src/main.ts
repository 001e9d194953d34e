import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import {
  createControlPlane,
  loadOrCreateServiceAccountKeyFiles,
  loadOrCreateServingPki,
  runCommand,
  type ControlPlane,
  type Logger,
  type RunningCommand,
} from "@kubekit/generic-controlplane";
import { configFromKubeconfig, KubeClient } from "@kubekit/generic-controlplane/controllers";
import { createMemoryStorage, createSqliteStorage, type Storage } from "@kubekit/generic-controlplane/storage";
import { applyManifest, manifestObjects, readManifest } from "./manifest.js";
import { parseOptions, USAGE, type HyperMiniOptions } from "./options.js";
import { startPaletteWebhook, type PaletteWebhook } from "./palette-webhook.js";

async function run(options: HyperMiniOptions, log: Logger): Promise<RunningCommand> {
  let storage: Storage;
  if (options.storage.kind === "sqlite") {
    const path = resolve(options.storage.path);
    mkdirSync(dirname(path), { recursive: true });
    storage = await createSqliteStorage({ path });
  } else {
    storage = createMemoryStorage();
  }

  // The API server's PKI (kept in --cert-dir) and the webhook's own CA (made anew at each start).
  const certDir = resolve(options.certDir);
  const pki = await loadOrCreateServingPki(certDir);
  const keys = await loadOrCreateServiceAccountKeyFiles(certDir);
  const webhook = await startPaletteWebhook();
  let plane: ControlPlane;
  try {
    plane = await createControlPlane({
      storage,
      host: options.host,
      port: options.port,
      name: "kube-hyper-mini",
      tls: { ...pki.serving, clientCA: pki.ca.cert },
      // Client certificates of the CA and service account tokens; anonymous requests reach discovery and health only.
      authentication: {},
      serviceAccountTokens: keys,
      kubeconfigCredentials: { certificateAuthority: pki.ca.cert, clientCertificate: pki.admin.cert, clientKey: pki.admin.key },
      authorization: { modes: ["RBAC"] },
      // KEP-4080's kube-hyper-mini bundles the controllers that are not about workloads.
      controllers: { leaderElection: false },
      logger: options.requestLog ? log : (record) => record.msg !== "request" && log(record),
    });
  } catch (error) {
    await webhook.close();
    throw error;
  }
  const stopAll = async (): Promise<void> => {
    await plane.close();
    await webhook.close();
  };
  try {
    await installWidgetApi(plane, webhook);
  } catch (error) {
    await stopAll();
    throw error;
  }
  const kubeconfig = resolve(options.kubeconfig);
  await plane.writeKubeconfig(kubeconfig);
  log({ msg: "kubeconfig written", path: kubeconfig });

  process.stdout.write(`ready ${plane.url}\n`);
  return { stop: stopAll };
}

/** Applies the manifest as the admin the kubeconfig names, through the API like any client. */
async function installWidgetApi(plane: ControlPlane, webhook: PaletteWebhook): Promise<void> {
  const client = new KubeClient(await configFromKubeconfig(plane.kubeconfig));
  try {
    await applyManifest(client, manifestObjects(readManifest(), webhook));
  } finally {
    client.close();
  }
}

runCommand({ usage: USAGE, parse: parseOptions, run });
