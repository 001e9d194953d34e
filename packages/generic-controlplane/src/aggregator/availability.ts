import { createHash } from "node:crypto";
import { isControlPlaneError } from "../api/errors/control-plane-error.js";
import { formatTime } from "../registry/rest/object-utils.js";
import type { SwaggerDocument } from "../openapi/v2.js";
import type { ResourceStore, ResourceWatch } from "../registry/types.js";
import type { ServiceResolver } from "../webhook/client-config.js";
import { getFromRemote, resolveRemote, ServiceNotFoundError, type RemoteEndpoint } from "./remote.js";
import type { APIService, APIServiceCondition } from "./types.js";

/** An APIService served by an extension server, as last checked. */
export interface RemoteGroupVersion {
  name: string;
  group: string;
  version: string;
  groupPriorityMinimum: number;
  versionPriority: number;
  /** Set once the service resolved. */
  endpoint: RemoteEndpoint | undefined;
  available: boolean;
  /** The extension server's APIResourceList for the group version, from the last passing check. */
  resources: { resources?: Array<Record<string, unknown>> } | undefined;
  /** Its OpenAPI v3 document for the group version, when it publishes one. */
  openapi: { json: string; hash: string } | undefined;
  /** Its whole OpenAPI v2 document (`/openapi/v2`), when it publishes one: merged into ours. */
  openapiV2: { document: SwaggerDocument; hash: string } | undefined;
}

export interface AvailabilityOptions {
  store: ResourceStore;
  resolver: ServiceResolver | undefined;
  /** How often every APIService is checked again (upstream resyncs every 30 s). */
  intervalMs?: number;
  /** Deadline of one discovery check (upstream gives up after 6 s). */
  checkTimeoutMs?: number;
  /** Called when what the extension servers serve changed (discovery and OpenAPI must be rebuilt). */
  onChange(): void;
}

const DISCOVERY_FAILED = "FailedDiscoveryCheck";

function sameCondition(a: APIServiceCondition | undefined, b: APIServiceCondition): boolean {
  return a !== undefined && a.status === b.status && a.reason === b.reason && a.message === b.message;
}

/**
 * kube-aggregator's AvailableConditionController for service-backed APIServices: resolves the
 * service (`ServiceNotFound` when it cannot), GETs `/apis/<group>/<version>` from it
 * (`FailedDiscoveryCheck` unless it answers 2xx), and records the Available condition. The
 * discovery and OpenAPI v3 documents fetched along the way feed the merged documents.
 */
export class AvailabilityController {
  readonly #options: AvailabilityOptions;
  readonly #remotes = new Map<string, RemoteGroupVersion>();
  readonly #pending = new Map<string, Promise<void>>();
  /** The spec last seen of each APIService: status writes come back as MODIFIED events too. */
  readonly #specs = new Map<string, string>();
  #watch: ResourceWatch | undefined;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(options: AvailabilityOptions) {
    this.#options = options;
  }

  /** The service-backed APIService for a group version, available or not. */
  remote(group: string, version: string): RemoteGroupVersion | undefined {
    for (const remote of this.#remotes.values()) if (remote.group === group && remote.version === version) return remote;
    return undefined;
  }

  get remotes(): RemoteGroupVersion[] {
    return [...this.#remotes.values()];
  }

  async start(): Promise<void> {
    this.#watch = await this.#options.store.watch(undefined, {}, (event) => {
      if (event.type === "ADDED" || event.type === "MODIFIED") this.#observe(event.object);
      else if (event.type === "DELETED") this.#forget(event.object.metadata?.name ?? "");
    });
    const interval = this.#options.intervalMs ?? 30_000;
    this.#timer = setInterval(() => {
      for (const name of this.#remotes.keys()) this.#schedule(name);
    }, interval);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#watch?.stop();
    clearInterval(this.#timer);
    await Promise.allSettled([...this.#pending.values()]);
  }

  #observe(apiService: APIService): void {
    const name = apiService.metadata?.name ?? "";
    const spec = apiService.spec ?? {};
    if (spec.service === undefined) {
      this.#forget(name);
      return;
    }
    const known = this.#remotes.get(name);
    const serialized = JSON.stringify(spec);
    const specChanged = this.#specs.get(name) !== serialized;
    this.#specs.set(name, serialized);
    this.#remotes.set(name, {
      name,
      group: spec.group ?? "",
      version: spec.version ?? "",
      groupPriorityMinimum: spec.groupPriorityMinimum ?? 0,
      versionPriority: spec.versionPriority ?? 0,
      endpoint: known?.endpoint,
      available: known?.available ?? false,
      resources: known?.resources,
      openapi: known?.openapi,
      openapiV2: known?.openapiV2,
    });
    if (specChanged) this.#schedule(name);
  }

  #forget(name: string): void {
    this.#specs.delete(name);
    if (this.#remotes.delete(name)) this.#options.onChange();
  }

  #schedule(name: string): void {
    if (this.#stopped || this.#pending.has(name)) return;
    // A check that could not record its result (storage trouble) is retried by the next resync.
    const run = this.#check(name)
      .catch(() => undefined)
      .finally(() => this.#pending.delete(name));
    this.#pending.set(name, run);
  }

  /** Checks one APIService now and records the outcome; resolves when done (tests and the loop use it). */
  async #check(name: string): Promise<void> {
    let apiService: APIService;
    try {
      apiService = await this.#options.store.get(undefined, name);
    } catch (error) {
      if (isControlPlaneError(error) && error.code === "NotFound") return this.#forget(name);
      throw error;
    }
    const remote = this.#remotes.get(name);
    if (remote === undefined || apiService.spec?.service === undefined) return;
    const group = apiService.spec.group ?? "";
    const version = apiService.spec.version ?? "";
    let condition: APIServiceCondition;
    let resources: RemoteGroupVersion["resources"];
    let openapi: RemoteGroupVersion["openapi"];
    let openapiV2: RemoteGroupVersion["openapiV2"];
    try {
      remote.endpoint = await resolveRemote(apiService, this.#options.resolver);
      const path = name === "v1." ? `/api/${version}` : `/apis/${group}/${version}`;
      const shown = new URL(path, remote.endpoint.base);
      const discoveryURL = shown.port === "" ? `${shown.protocol}//${shown.host}:443${shown.pathname}` : shown.href;
      let answer: { status: number; body: Buffer };
      try {
        answer = await getFromRemote(remote.endpoint, path, this.#options.checkTimeoutMs ?? 6000);
      } catch (error) {
        throw new Error(`failing or missing response from ${discoveryURL}: ${error instanceof Error ? error.message : String(error)}`, {
          cause: error,
        });
      }
      if (answer.status < 200 || answer.status >= 300) throw new Error(`bad status from ${discoveryURL}: ${answer.status}`);
      resources = JSON.parse(answer.body.toString("utf8")) as RemoteGroupVersion["resources"];
      openapi = await this.#openapiOf(remote.endpoint, group, version);
      openapiV2 = await this.#openapiV2Of(remote.endpoint);
      condition = { type: "Available", status: "True", reason: "Passed", message: "all checks passed" };
    } catch (error) {
      const reason = error instanceof ServiceNotFoundError ? "ServiceNotFound" : DISCOVERY_FAILED;
      condition = { type: "Available", status: "False", reason, message: error instanceof Error ? error.message : String(error) };
    }
    if (this.#stopped) return;
    const available = condition.status === "True";
    const changed =
      remote.available !== available ||
      JSON.stringify(remote.resources) !== JSON.stringify(resources) ||
      remote.openapi?.hash !== openapi?.hash ||
      remote.openapiV2?.hash !== openapiV2?.hash;
    remote.available = available;
    remote.resources = available ? resources : undefined;
    remote.openapi = available ? openapi : undefined;
    remote.openapiV2 = available ? openapiV2 : undefined;
    await this.#record(name, condition);
    if (changed) this.#options.onChange();
  }

  /** The extension server's OpenAPI v3 document for the group version, if it publishes one. */
  async #openapiOf(endpoint: RemoteEndpoint, group: string, version: string): Promise<RemoteGroupVersion["openapi"]> {
    try {
      const answer = await getFromRemote(endpoint, `/openapi/v3/apis/${group}/${version}`, this.#options.checkTimeoutMs ?? 6000);
      if (answer.status !== 200) return undefined;
      const json = answer.body.toString("utf8");
      return { json, hash: createHash("sha512").update(json).digest("hex").toUpperCase() };
    } catch {
      return undefined;
    }
  }

  /** The extension server's OpenAPI v2 document, if it publishes one (a server without one still serves its APIs). */
  async #openapiV2Of(endpoint: RemoteEndpoint): Promise<RemoteGroupVersion["openapiV2"]> {
    try {
      const answer = await getFromRemote(endpoint, "/openapi/v2", this.#options.checkTimeoutMs ?? 6000);
      if (answer.status !== 200) return undefined;
      const document = JSON.parse(answer.body.toString("utf8")) as SwaggerDocument | null;
      if (document === null || typeof document !== "object" || typeof document.paths !== "object") return undefined;
      return { document, hash: createHash("sha512").update(answer.body).digest("hex") };
    } catch {
      return undefined;
    }
  }

  async #record(name: string, condition: APIServiceCondition): Promise<void> {
    try {
      await this.#options.store.guaranteedUpdate(
        undefined,
        name,
        (current) => {
          const apiService = current as APIService;
          const conditions = apiService.status?.conditions ?? [];
          const existing = conditions.find((c) => c.type === "Available");
          if (sameCondition(existing, condition)) return current;
          const next: APIServiceCondition = {
            ...condition,
            lastTransitionTime:
              existing?.status === condition.status && existing.lastTransitionTime ? existing.lastTransitionTime : formatTime(new Date()),
          };
          apiService.status = { conditions: [...conditions.filter((c) => c.type !== "Available"), next] };
          return apiService;
        },
        { subresource: "status" },
      );
    } catch (error) {
      // Deleted meanwhile: nothing to record.
      if (!(isControlPlaneError(error) && error.code === "NotFound")) throw error;
    }
  }
}
