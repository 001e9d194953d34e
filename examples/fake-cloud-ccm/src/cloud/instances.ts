/** An instance's power state, as a cloud's API reports it. */
export type InstanceState = "running" | "stopped" | "rebooting";

/** What starts and stops the machines behind the instances (the simulated nodes' kubelets). */
export interface Machines {
  stop(name: string): Promise<void>;
  start(name: string): Promise<void>;
}

export class InstanceNotFoundError extends Error {
  override readonly name = "InstanceNotFoundError";
}

/** A transient failure of the cloud's instance API (what a CCM must not take for "gone"). */
export class InstanceLookupError extends Error {
  override readonly name = "InstanceLookupError";
}

interface Instance {
  name: string;
  state: InstanceState;
}

/**
 * The instances of the fake cloud, one per node, addressed by provider ID
 * (`sim://<cluster>/<node>`, what the simulated kubelet registers). Deleting one is for good.
 */
export class FakeInstances {
  readonly #instances = new Map<string, Instance>();

  constructor(private readonly machines?: Machines) {}

  /** Whether instances can be stopped, started and rebooted (the machines are controllable). */
  get controllable(): boolean {
    return this.machines !== undefined;
  }

  register(providerID: string, name: string): void {
    if (!this.#instances.has(providerID)) this.#instances.set(providerID, { name, state: "running" });
  }

  #get(providerID: string): Instance {
    const instance = this.#instances.get(providerID);
    if (instance === undefined) throw new InstanceNotFoundError(`instance ${providerID} not found`);
    return instance;
  }

  /** `InstanceExists`: true for stopped instances too; a rebooting one cannot be looked up for now. */
  exists(providerID: string): boolean {
    const instance = this.#instances.get(providerID);
    if (instance === undefined) return false;
    if (instance.state === "rebooting") throw new InstanceLookupError(`instance ${providerID} is in transition, try again`);
    return true;
  }

  /** `InstanceShutdown`. */
  shutdown(providerID: string): boolean {
    return this.#get(providerID).state === "stopped";
  }

  async delete(providerID: string): Promise<void> {
    const instance = this.#get(providerID);
    this.#instances.delete(providerID);
    await this.machines?.stop(instance.name);
  }

  async stop(providerID: string): Promise<void> {
    const instance = this.#get(providerID);
    instance.state = "stopped";
    await this.#machines().stop(instance.name);
  }

  async start(providerID: string): Promise<void> {
    const instance = this.#get(providerID);
    await this.#machines().start(instance.name);
    instance.state = "running";
  }

  /** Power-cycles the machine; the instance cannot be looked up until it is running again. */
  async reboot(providerID: string, downMs: number): Promise<void> {
    const instance = this.#get(providerID);
    instance.state = "rebooting";
    await this.#machines().stop(instance.name);
    setTimeout(() => {
      this.#machines()
        .start(instance.name)
        // A machine whose Node was deleted meanwhile boots into nothing: there is nobody to tell.
        .catch(() => undefined)
        .finally(() => {
          if (this.#instances.get(providerID) === instance) instance.state = "running";
        });
    }, downMs).unref();
  }

  #machines(): Machines {
    if (this.machines === undefined) throw new Error("this fake cloud cannot stop or start its machines");
    return this.machines;
  }
}
