import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import { hostname } from "node:os";
import type { Registry } from "prom-client";
import type { Logger } from "../server/logger.js";
import type { KubeObject } from "../api/types.js";
import type { KubeClient } from "./client.js";
import { garbageCollector } from "./garbagecollector/controller.js";
import { LeaderElector } from "./leader-election.js";
import { namespaceController } from "./namespace/controller.js";
import { serviceAccountController } from "./serviceaccount/controller.js";
import { eventTTLController } from "./eventttl/controller.js";
import { resourceQuotaController } from "./resourcequota/controller.js";
import type { QuotaEvaluator } from "../quota/evaluator.js";
import { rootCACertPublisher } from "./rootcacertpublisher/controller.js";
import { csrSigningController } from "./certificates/signer.js";
import { csrCleanerController } from "./certificates/cleaner.js";
import type { CertificateAndKey } from "../certs/authority.js";
import { createControllerContext, type Controller, type ControllerContext } from "./runtime.js";

/**
 * Which controllers run, in kube-controller-manager's `--controllers` syntax: `*` turns on every
 * controller on by default, `name` turns one on, `-name` turns one off. Unknown names are an
 * error, as upstream.
 */
export function selectControllers(spec: readonly string[], known: readonly string[], disabledByDefault: readonly string[] = []): string[] {
  const entries = spec
    .flatMap((s) => s.split(","))
    .map((s) => s.trim())
    .filter((s) => s !== "");
  for (const entry of entries) {
    if (entry === "*") continue;
    const name = entry.startsWith("-") ? entry.slice(1) : entry;
    if (!known.includes(name)) throw new Error(`${JSON.stringify(name)} is not in the list of known controllers`);
  }
  const star = entries.includes("*");
  return known.filter((name) => {
    if (entries.includes(`-${name}`)) return false;
    if (entries.includes(name)) return true;
    return star && !disabledByDefault.includes(name);
  });
}

export interface ControllerLeaderElection {
  /** The Lease (default `kube-system/kube-controller-manager`, as upstream). */
  namespace?: string;
  name?: string;
  /** Default `<hostname>_<uuid>`, as upstream. */
  identity?: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
}

export interface ControllerManagerOptions {
  client: KubeClient;
  /** `--controllers` entries (default `["*"]`). */
  controllers?: readonly string[];
  /** Controllers besides the built-in ones (`KNOWN_CONTROLLERS`); selectable by name the same way. */
  extraControllers?: readonly Controller[];
  /** Elect one manager among several on a Lease before running anything (default on); `false` runs at once. */
  leaderElection?: false | ControllerLeaderElection;
  /** Wait before a deleted namespace is emptied (default 5 s as upstream; 0 suits a single API server and store). */
  namespaceDeletionGracePeriodMs?: number;
  /**
   * The CA bundle clients verify the API server with, published as `kube-root-ca.crt` in every
   * namespace (kube-controller-manager's `--root-ca-file`). Without it `root-ca-cert-publisher`
   * runs only when named.
   */
  rootCA?: string;
  /**
   * The CA that signs approved `kubernetes.io/kube-apiserver-client` requests (the API server's
   * client CA; kube-controller-manager's `--cluster-signing-kube-apiserver-client-{cert,key}-file`).
   * Without it `csrsigning` runs only when named, and signs nothing. (`csrcleaner` runs when named;
   * `createControlPlane` names it when it serves CertificateSigningRequests.)
   */
  clusterSigningKubeAPIServerClient?: CertificateAndKey;
  /** The `resourcequota` controller's evaluators of resources measured beyond an object count. */
  quotaEvaluators?: readonly QuotaEvaluator[];
  /** How often discovery is re-read for resource types added or removed (default 30 s). */
  discoveryPeriodMs?: number;
  /**
   * Applied to every object the controllers' shared informers cache (`InformerOptions.transform`),
   * as kube-controller-manager gives its informers `dropManagedFields`. Default: none, as the
   * event TTL controller reads an Event's last write from its managed fields.
   */
  informerTransform?: (object: KubeObject) => KubeObject;
  registry?: Registry;
  logger?: Logger;
}

/** The built-in controllers' names. */
export const KNOWN_CONTROLLERS = [
  "namespace",
  "garbagecollector",
  "serviceaccount",
  "eventttl",
  "resourcequota",
  "root-ca-cert-publisher",
  "csrsigning",
  "csrcleaner",
] as const;

/**
 * Runs a set of controllers against one API server, like kube-controller-manager: optionally
 * only while holding the leader Lease, with shared informers. Leadership lost stops the
 * controllers and their informers; the manager then campaigns again.
 */
export class ControllerManager {
  readonly #options: ControllerManagerOptions;
  readonly #controllers: Controller[];
  readonly #stop = new AbortController();
  #running: Promise<void> | undefined;
  #leading = false;
  #elector: LeaderElector | undefined;

  constructor(options: ControllerManagerOptions) {
    this.#options = options;
    const builtin: Controller[] = [
      namespaceController({ deletionGracePeriodMs: options.namespaceDeletionGracePeriodMs ?? 5_000 }),
      garbageCollector(),
      serviceAccountController(),
      eventTTLController(),
      resourceQuotaController(options.quotaEvaluators === undefined ? {} : { evaluators: options.quotaEvaluators }),
      rootCACertPublisher({ rootCA: options.rootCA ?? "" }),
      csrSigningController({ kubeAPIServerClient: options.clusterSigningKubeAPIServerClient ?? { cert: "", key: "" } }),
      csrCleanerController(),
    ];
    const all = [...builtin, ...(options.extraControllers ?? [])];
    // Each of these works on something not every server has: it runs when named.
    const off = [
      ...(options.rootCA === undefined ? ["root-ca-cert-publisher"] : []),
      ...(options.clusterSigningKubeAPIServerClient === undefined ? ["csrsigning"] : []),
      "csrcleaner",
    ];
    const selected = selectControllers(
      options.controllers ?? ["*"],
      all.map((c) => c.name),
      off,
    );
    this.#controllers = all.filter((c) => selected.includes(c.name));
  }

  /** Names of the controllers this manager runs. */
  get controllers(): string[] {
    return this.#controllers.map((c) => c.name);
  }

  /** Whether the controllers are running (leading, or without leader election). */
  get running(): boolean {
    return this.#leading;
  }

  start(): void {
    if (this.#running !== undefined) return;
    const election = this.#options.leaderElection;
    if (election === false) {
      this.#running = this.#runControllers(this.#stop.signal);
      return;
    }
    const logger = this.#options.logger;
    this.#elector = new LeaderElector({
      client: this.#options.client,
      namespace: election?.namespace ?? "kube-system",
      name: election?.name ?? "kube-controller-manager",
      identity: election?.identity ?? `${hostname()}_${randomUUID()}`,
      ...(election?.leaseDurationMs !== undefined ? { leaseDurationMs: election.leaseDurationMs } : {}),
      ...(election?.renewDeadlineMs !== undefined ? { renewDeadlineMs: election.renewDeadlineMs } : {}),
      ...(election?.retryPeriodMs !== undefined ? { retryPeriodMs: election.retryPeriodMs } : {}),
      ...(this.#options.registry !== undefined ? { registry: this.#options.registry } : {}),
      ...(logger !== undefined ? { logger } : {}),
      onStartedLeading: (signal) => this.#runControllers(signal),
    });
    this.#running = this.#elector.run(this.#stop.signal);
  }

  /** Stops the controllers and, when leading, releases the Lease. */
  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#running;
  }

  async #runControllers(signal: AbortSignal): Promise<void> {
    // Every controller waits on this one signal: a manager with more than ten controllers is
    // not a listener leak, so Node should not warn about one.
    setMaxListeners(0, signal);
    const logger = this.#options.logger ?? (() => undefined);
    const context: ControllerContext = createControllerContext(this.#options.client, {
      logger,
      ...(this.#options.registry !== undefined ? { registry: this.#options.registry } : {}),
      ...(this.#options.discoveryPeriodMs !== undefined ? { discoveryPeriodMs: this.#options.discoveryPeriodMs } : {}),
      ...(this.#options.informerTransform !== undefined ? { informer: { transform: this.#options.informerTransform } } : {}),
    });
    this.#leading = true;
    logger({ msg: "starting controllers", controllers: this.controllers });
    const runs = this.#controllers.map((controller) =>
      controller
        .run(context, signal)
        .catch((error: unknown) => logger({ level: "error", msg: "controller failed", controller: controller.name, error: String(error) })),
    );
    context.informers.start();
    await Promise.all(runs);
    await context.informers.stop();
    this.#leading = false;
    logger({ msg: "stopped controllers" });
  }
}
