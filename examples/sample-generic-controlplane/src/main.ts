import { mkdirSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { createControlPlane, runCommand, type Logger, type RunningCommand } from "@kubekit/generic-controlplane";
import { createAuditLog, parseAuditPolicy, type AuditOptions } from "@kubekit/generic-controlplane/server";
import { createMemoryStorage, createSqliteStorage, type Storage } from "@kubekit/generic-controlplane/storage";
import { createEtcdStorage } from "@kubekit/generic-controlplane/storage/etcd";
import { parseOptions, USAGE, type SampleOptions } from "./options.js";
import { securitySettings, type SecuritySettings } from "./security.js";

async function run(options: SampleOptions, log: Logger): Promise<number | RunningCommand> {
  let security: SecuritySettings;
  try {
    security = await securitySettings(options.security);
  } catch (error) {
    process.stderr.write(`sample-generic-controlplane: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  let audit: AuditOptions | undefined;
  try {
    audit =
      options.audit === undefined
        ? undefined
        : {
            policy: parseAuditPolicy(readFileSync(options.audit.policyFile, "utf8")),
            backend: createAuditLog({
              path: options.audit.logPath,
              maxSizeMB: options.audit.maxSizeMB,
              maxBackups: options.audit.maxBackups,
              maxAgeDays: options.audit.maxAgeDays,
            }),
          };
  } catch (error) {
    process.stderr.write(`sample-generic-controlplane: --audit-policy-file: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  let storage: Storage;
  if (options.storage.kind === "sqlite") {
    const path = resolve(options.storage.path);
    mkdirSync(dirname(path), { recursive: true });
    try {
      storage = await createSqliteStorage({ path, compactInterval: options.compactionInterval });
    } catch (error) {
      // E.g. another server already owns the file: say so plainly and exit 1.
      process.stderr.write(`sample-generic-controlplane: ${error instanceof Error ? error.message : String(error)}\n`);
      return 1;
    }
    log({ msg: "storage", backend: "sqlite", path });
  } else if (options.storage.kind === "etcd") {
    const etcd = options.storage;
    try {
      storage = createEtcdStorage({
        endpoints: etcd.endpoints,
        prefix: etcd.prefix,
        compactInterval: options.compactionInterval,
        ...(etcd.caFile === undefined
          ? {}
          : {
              tls: {
                ca: readFileSync(etcd.caFile),
                ...(etcd.certFile === undefined || etcd.keyFile === undefined
                  ? {}
                  : { cert: readFileSync(etcd.certFile), key: readFileSync(etcd.keyFile) }),
              },
            }),
      });
      await waitForStorage(storage, ETCD_WAIT_MS);
    } catch (error) {
      process.stderr.write(
        `sample-generic-controlplane: cannot use etcd at ${etcd.endpoints.join(",")}: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      return 1;
    }
    log({ msg: "storage", backend: "etcd", endpoints: etcd.endpoints, prefix: etcd.prefix });
  } else {
    storage = createMemoryStorage({ compactInterval: options.compactionInterval });
    log({ msg: "storage", backend: "memory" });
  }
  const plane = await createControlPlane({
    storage,
    host: options.host,
    port: options.port,
    name: "sample-generic-controlplane",
    ...security,
    authorization: { modes: options.authorizationModes },
    ...(audit === undefined ? {} : { audit }),
    requestTimeoutMs: options.requestTimeout,
    shutdownDelayMs: options.shutdownDelay,
    enablePriorityAndFairness: options.enablePriorityAndFairness,
    maxRequestsInflight: options.maxRequestsInflight,
    maxMutatingRequestsInflight: options.maxMutatingRequestsInflight,
    logger: options.requestLog ? log : (record) => record.msg !== "request" && log(record),
    ...(options.controllers.length > 0
      ? { controllers: { controllers: options.controllers, ...(options.leaderElect ? {} : { leaderElection: false as const }) } }
      : {}),
  });
  const kubeconfig = resolve(options.kubeconfig);
  await plane.writeKubeconfig(kubeconfig);
  log({ msg: "kubeconfig written", path: kubeconfig });

  process.stdout.write(`ready ${plane.url}\n${connectHint(kubeconfig)}`);
  return { stop: () => plane.close() };
}

/** How to reach the server, as kind prints it after creating a cluster. */
function connectHint(kubeconfig: string): string {
  const path = /^[\w./-]+$/.test(kubeconfig) ? kubeconfig : `'${kubeconfig.replaceAll("'", "'\\''")}'`;
  return `kubeconfig written to ${kubeconfig}; talk to the server with:\n  kubectl --kubeconfig ${path} get namespaces\n`;
}

/** How long a server started beside its etcd waits for it, as kube-apiserver retries its first connection. */
const ETCD_WAIT_MS = 20_000;

async function waitForStorage(storage: Storage, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await (storage.checkHealth?.() ?? storage.currentRevision());
      return;
    } catch (error) {
      if (Date.now() > deadline) {
        await storage.close();
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

runCommand({ usage: USAGE, parse: parseOptions, run });
