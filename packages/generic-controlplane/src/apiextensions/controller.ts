import type { KubeObject } from "../api/types.js";
import type { AdmissionPlugin } from "../admission/types.js";
import { isControlPlaneError } from "../api/errors/control-plane-error.js";
import { formatTime } from "../registry/rest/object-utils.js";
import type { ResourceDefinition } from "../registry/rest/resource-definition.js";
import { createResourceStore } from "../registry/store.js";
import type { ResourceStore, ResourceWatch } from "../registry/types.js";
import type { ApiServer } from "../server/api-server.js";
import type { Logger } from "../server/logger.js";
import type { Storage } from "../storage/types.js";
import type { ServiceResolver } from "../webhook/client-config.js";
import { converterFor, type ConverterFactory } from "./conversion.js";
import { convertingStorage } from "./conversion/converting-storage.js";
import { webhookConverter } from "./conversion/webhook-converter.js";
import { customResourceDefinitionsFor, deprecationWarning } from "./custom-resource.js";
import { calculateNames } from "./names.js";
import type { CompiledCustomResourceSchema, CustomResourceSchemas } from "./schema-seam.js";
import { compileSchema, structuralErrors } from "./schema/index.js";
import {
  CUSTOM_RESOURCE_CLEANUP_FINALIZER,
  findCondition,
  isConditionTrue,
  setCondition,
  storageVersionOf,
  type CustomResourceDefinition,
  type CustomResourceDefinitionCondition,
  type CustomResourceSubresourceScale,
} from "./types.js";
import { cloneJson } from "../patch/json-value.js";

export interface CrdControllerOptions {
  /** The CRDs' REST storage. */
  crds: ResourceStore;
  server: ApiServer;
  storage: Storage;
  /** Admission plugins every custom resource store runs (shared by reference). */
  admission: AdmissionPlugin[];
  /** Pruning, defaulting and validation of custom resources; default the schema module's. */
  schemas?: CustomResourceSchemas | undefined;
  converters?: ConverterFactory | undefined;
  /** Resolves the `service` of conversion webhooks (the admission webhooks' resolver). */
  serviceResolver?: ServiceResolver | undefined;
  clock?: () => Date;
  logger?: Logger | undefined;
  /** Delay before a failed or unfinished sync runs again (default 1000 ms). */
  retryDelayMs?: number;
}

/** What is served for one CRD. */
interface Served {
  fingerprint: string;
  group: string;
  plural: string;
  versions: Map<string, { store: ResourceStore; scale: CustomResourceSubresourceScale | undefined; warning: string | undefined }>;
}

/**
 * The apiextensions controllers in one reconciler, run in-process against the CRD store (upstream
 * runs them next to the crdHandler): naming (NamesAccepted, `status.acceptedNames`), establishing
 * (Established), the custom resource handler (serving each served version through
 * `server.addResource`), and the finalizer that deletes a CRD's custom resources before it goes.
 */
export class CrdController {
  readonly #options: CrdControllerOptions;
  readonly #served = new Map<string, Served>();
  readonly #pending = new Set<string>();
  readonly #retries = new Set<ReturnType<typeof setTimeout>>();
  #draining: Promise<void> | undefined;
  #watch: ResourceWatch | undefined;
  #stopped = false;

  constructor(options: CrdControllerOptions) {
    this.#options = { ...options, schemas: options.schemas ?? { compileSchema: (schema) => compileSchema(schema), structuralErrors } };
  }

  /**
   * Serves the CRDs already stored (so custom resources answer as soon as the server does, e.g.
   * after a restart), then follows changes.
   */
  async start(): Promise<void> {
    const list = await this.#options.crds.list(undefined);
    for (const crd of list.items) await this.#sync(crd.metadata?.name ?? "");
    await this.#startWatch(list.metadata.resourceVersion);
  }

  async #startWatch(resourceVersion: string | undefined): Promise<void> {
    if (this.#stopped) return;
    this.#watch = await this.#options.crds.watch(
      undefined,
      resourceVersion ? { resourceVersion } : {},
      (event) => {
        if (event.type === "BOOKMARK" || event.type === "ERROR") return;
        const crd = event.object as CustomResourceDefinition;
        this.#enqueueGroup(crd);
      },
      () => {
        // The watch ended (e.g. history compacted): start over from the current state.
        if (this.#stopped) return;
        this.#later(() => void this.#restartWatch());
      },
    );
  }

  async #restartWatch(): Promise<void> {
    try {
      const list = await this.#options.crds.list(undefined);
      for (const crd of list.items) this.#enqueue(crd.metadata?.name ?? "");
      for (const name of this.#served.keys()) this.#enqueue(name);
      await this.#startWatch(list.metadata.resourceVersion);
    } catch (error) {
      this.#log("watch restart failed", error);
      this.#later(() => void this.#restartWatch());
    }
  }

  stop(): void {
    this.#stopped = true;
    this.#watch?.stop();
    for (const timer of this.#retries) clearTimeout(timer);
    this.#retries.clear();
  }

  #version(group: string, version: string, plural: string) {
    for (const served of this.#served.values()) {
      if (served.group === group && served.plural === plural) return served.versions.get(version);
    }
    return undefined;
  }

  /** The store and scale paths of a served custom resource version, for its `scale` subresource. */
  scalable(group: string, version: string, plural: string): { store: ResourceStore; scale: CustomResourceSubresourceScale } | undefined {
    const entry = this.#version(group, version, plural);
    return entry?.scale !== undefined ? { store: entry.store, scale: entry.scale } : undefined;
  }

  /** The warning requests to a deprecated custom resource version get. */
  deprecationWarning(group: string, version: string, plural: string): string | undefined {
    return this.#version(group, version, plural)?.warning;
  }

  /** A change to one CRD can free or take names of the others in its group. */
  #enqueueGroup(changed: CustomResourceDefinition): void {
    this.#enqueue(changed.metadata?.name ?? "");
    const group = changed.spec?.group;
    void this.#options.crds.list(undefined).then(
      (list) => {
        for (const crd of list.items as CustomResourceDefinition[]) {
          if (crd.spec?.group === group && !isConditionTrue(crd, "NamesAccepted")) this.#enqueue(crd.metadata?.name ?? "");
        }
      },
      (error: unknown) => this.#log("listing CRDs failed", error),
    );
  }

  #enqueue(name: string): void {
    if (name === "" || this.#stopped) return;
    this.#pending.add(name);
    if (this.#draining !== undefined) return;
    this.#draining = this.#drain().finally(() => {
      this.#draining = undefined;
      if (this.#pending.size > 0) this.#enqueue([...this.#pending][0]!);
    });
  }

  async #drain(): Promise<void> {
    while (this.#pending.size > 0 && !this.#stopped) {
      const name = [...this.#pending][0]!;
      this.#pending.delete(name);
      await this.#sync(name);
    }
  }

  #later(run: () => void): void {
    if (this.#stopped) return;
    const timer = setTimeout(() => {
      this.#retries.delete(timer);
      run();
    }, this.#options.retryDelayMs ?? 1000);
    this.#retries.add(timer);
  }

  #log(msg: string, error: unknown): void {
    this.#options.logger?.({ level: "error", msg, error: error instanceof Error ? error.message : String(error) });
  }

  async #sync(name: string): Promise<void> {
    try {
      const again = await this.#reconcile(name);
      if (again) this.#later(() => this.#enqueue(name));
    } catch (error) {
      if (isControlPlaneError(error) && error.code === "Conflict") {
        // A newer version is on its way through the watch.
        this.#enqueue(name);
        return;
      }
      this.#log(`syncing CustomResourceDefinition ${name} failed`, error);
      this.#later(() => this.#enqueue(name));
    }
  }

  /** One pass over one CRD; true when it must be looked at again later. */
  async #reconcile(name: string): Promise<boolean> {
    let crd: CustomResourceDefinition;
    try {
      crd = await this.#options.crds.get(undefined, name);
    } catch (error) {
      if (isControlPlaneError(error) && error.code === "NotFound") {
        this.#unserve(name);
        return false;
      }
      throw error;
    }
    const now = formatTime((this.#options.clock ?? (() => new Date()))());

    if (crd.metadata?.deletionTimestamp !== undefined) {
      this.#serve(crd);
      if (!(crd.metadata.finalizers ?? []).includes(CUSTOM_RESOURCE_CLEANUP_FINALIZER)) return false;
      return this.#cleanUp(crd, now);
    }

    // Naming: accepted names and NamesAccepted, with Established False until served.
    const all = (await this.#options.crds.list(undefined)).items as CustomResourceDefinition[];
    const names = calculateNames(crd, all);
    const next = cloneJson(crd);
    (next.status ??= {}).acceptedNames = names.acceptedNames;
    setCondition(next, names.namesAccepted, now);
    setCondition(next, names.established, now);
    this.#setStructuralCondition(next, now);
    if (JSON.stringify(next.status) !== JSON.stringify(crd.status)) {
      await this.#updateStatus(next);
      return false;
    }

    // Establishing: serve, then say so.
    if (!isConditionTrue(crd, "NamesAccepted")) {
      if (!isConditionTrue(crd, "Established")) this.#unserve(name);
      return false;
    }
    this.#serve(crd);
    if (!isConditionTrue(crd, "Established")) {
      setCondition(
        next,
        { type: "Established", status: "True", reason: "InitialNamesAccepted", message: "the initial names have been accepted" },
        now,
      );
      await this.#updateStatus(next);
    }
    return false;
  }

  /** NonStructuralSchema: the schema module's findings on each version's schema. */
  #setStructuralCondition(crd: CustomResourceDefinition, now: string): void {
    const schemas = this.#options.schemas;
    if (schemas === undefined) return;
    const problems = (crd.spec?.versions ?? []).flatMap((version, i) => {
      const schema = version.schema?.openAPIV3Schema;
      return schema === undefined ? [] : schemas.structuralErrors(schema, `spec.versions[${i}].schema.openAPIV3Schema`);
    });
    const conditions = crd.status?.conditions ?? [];
    if (problems.length === 0) {
      if (crd.status) crd.status.conditions = conditions.filter((c) => c.type !== "NonStructuralSchema");
      return;
    }
    const message = problems.map((p) => `${p.field}: ${p.detail}`).join(", ");
    setCondition(
      crd,
      { type: "NonStructuralSchema", status: "True", reason: "Violations", message: problems.length > 1 ? `[${message}]` : message },
      now,
    );
  }

  async #updateStatus(crd: CustomResourceDefinition): Promise<void> {
    await this.#options.crds.update(undefined, crd.metadata?.name ?? "", crd, { subresource: "status" });
  }

  /**
   * upstream's finalizer controller: Terminating InstanceDeletionInProgress, every custom resource
   * deleted, then InstanceDeletionCompleted and the finalizer removed (the CRD then goes).
   */
  async #cleanUp(crd: CustomResourceDefinition, now: string): Promise<boolean> {
    const progress: CustomResourceDefinitionCondition = {
      type: "Terminating",
      status: "True",
      reason: "InstanceDeletionInProgress",
      message: "CustomResource deletion is in progress",
    };
    if (findCondition(crd, "Terminating")?.reason !== "InstanceDeletionInProgress") {
      const next = cloneJson(crd);
      setCondition(next, progress, now);
      await this.#updateStatus(next);
      return false;
    }
    const store = this.#storageStore(crd);
    let remaining = 0;
    if (store !== undefined) {
      const list = await store.list(undefined);
      for (const item of list.items) {
        if (item.metadata?.deletionTimestamp !== undefined) {
          remaining++;
          continue;
        }
        try {
          const result = await store.delete(item.metadata?.namespace, item.metadata?.name ?? "");
          if (!result.deleted) remaining++;
        } catch (error) {
          if (!(isControlPlaneError(error) && error.code === "NotFound")) {
            const failed = cloneJson(crd);
            setCondition(
              failed,
              {
                type: "Terminating",
                status: "True",
                reason: "InstanceDeletionFailed",
                message: `could not issue all deletes: ${(error as Error).message}`,
              },
              now,
            );
            await this.#updateStatus(failed);
            return true;
          }
        }
      }
    }
    // Custom resources held by their own finalizers: look again until they are gone.
    if (remaining > 0) return true;
    const done = cloneJson(crd);
    setCondition(
      done,
      { type: "Terminating", status: "False", reason: "InstanceDeletionCompleted", message: "removed all instances" },
      now,
    );
    done.metadata!.finalizers = (done.metadata!.finalizers ?? []).filter((f) => f !== CUSTOM_RESOURCE_CLEANUP_FINALIZER);
    await this.#updateStatus(done);
    return false;
  }

  /** A store of the storage version, served or not, to delete through. */
  #storageStore(crd: CustomResourceDefinition): ResourceStore | undefined {
    const storageVersion = storageVersionOf(crd);
    if (storageVersion === undefined) return undefined;
    const served = this.#served.get(crd.metadata?.name ?? "")?.versions.get(storageVersion);
    if (served !== undefined) return served.store;
    const unserved = cloneJson(crd);
    for (const version of unserved.spec?.versions ?? []) version.served = version.name === storageVersion;
    const definition = this.#definitions(unserved)[0];
    return definition === undefined ? undefined : this.#store(unserved, definition);
  }

  #definitions(crd: CustomResourceDefinition): ResourceDefinition[] {
    return customResourceDefinitionsFor(crd, { converter: this.#converter(crd), schemas: this.#options.schemas });
  }

  /** The CRD's converter, undefined for `None`: the embedder's factory first, then the `Webhook` strategy's. */
  #converter(crd: CustomResourceDefinition) {
    return converterFor(crd, this.#options.converters, (c) =>
      c.spec?.conversion?.strategy === "Webhook" ? webhookConverter(c, { resolver: this.#options.serviceResolver }) : undefined,
    );
  }

  /** Fills in the defaults of the CRD version an object is in (by its apiVersion). */
  #storedDefaults(crd: CustomResourceDefinition): (object: KubeObject) => void {
    const group = crd.spec?.group ?? "";
    const compiled = new Map<string, CompiledCustomResourceSchema>();
    for (const version of crd.spec?.versions ?? []) {
      const schema = version.schema?.openAPIV3Schema;
      const schemas = this.#options.schemas;
      if (schema !== undefined && schemas !== undefined) compiled.set(`${group}/${version.name ?? ""}`, schemas.compileSchema(schema));
    }
    return (object) => compiled.get(object.apiVersion ?? "")?.applyDefaults(object);
  }

  /** The store of one served version; with a converter, over storage that converts to and from that version. */
  #store(crd: CustomResourceDefinition, definition: ResourceDefinition): ResourceStore {
    const converter = definition.versionConverter;
    const group = crd.spec?.group ?? "";
    const storage =
      converter === undefined
        ? this.#options.storage
        : convertingStorage(this.#options.storage, {
            converter,
            servedApiVersion: `${group}/${definition.version}`,
            storageApiVersion: `${group}/${storageVersionOf(crd) ?? ""}`,
            knownApiVersions: new Set((crd.spec?.versions ?? []).map((v) => `${group}/${v.name ?? ""}`)),
            defaultStored: this.#storedDefaults(crd),
          });
    return createResourceStore(definition, storage, { admission: this.#options.admission });
  }

  /** Serves the CRD's served versions as they are now (re-adding them only when something changed). */
  #serve(crd: CustomResourceDefinition): void {
    const name = crd.metadata?.name ?? "";
    const fingerprint = JSON.stringify([crd.spec, crd.status?.acceptedNames, isConditionTrue(crd, "Terminating")]);
    const current = this.#served.get(name);
    if (current?.fingerprint === fingerprint) return;
    const served: Served = { fingerprint, group: crd.spec?.group ?? "", plural: crd.spec?.names?.plural ?? "", versions: new Map() };
    for (const definition of this.#definitions(crd)) {
      const store = this.#store(crd, definition);
      const version = crd.spec?.versions?.find((v) => v.name === definition.version);
      served.versions.set(definition.version, {
        store,
        scale: version?.subresources?.scale,
        warning: version === undefined ? undefined : deprecationWarning(crd, version),
      });
      this.#options.server.addResource({ definition, store });
    }
    for (const version of current?.versions.keys() ?? []) {
      if (!served.versions.has(version)) this.#options.server.removeResource(current!.group, version, current!.plural);
    }
    this.#served.set(name, served);
  }

  #unserve(name: string): void {
    const current = this.#served.get(name);
    if (current === undefined) return;
    for (const version of current.versions.keys()) this.#options.server.removeResource(current.group, version, current.plural);
    this.#served.delete(name);
  }
}
