import { isControlPlaneError } from "../api/errors/control-plane-error.js";
import type { ResourceStore, ResourceWatch } from "../registry/types.js";
import { labelSelectorAsSelector, type LabelSelector } from "../selectors/index.js";
import type { ClusterRole, PolicyRule, WireLabelSelector } from "./types.js";

/**
 * An aggregation selector as a matcher; one upstream cannot convert (only in data stored before
 * validation refused it) selects nothing, so it never grants rules.
 */
export function aggregationSelector(selector: WireLabelSelector): Pick<LabelSelector, "matches"> {
  try {
    return labelSelectorAsSelector(selector);
  } catch {
    return { matches: () => false };
  }
}

/**
 * The rules an aggregated ClusterRole should hold (pkg/controller/clusterroleaggregation): those
 * of every other ClusterRole one of its selectors matches, in name order, each rule once.
 */
export function aggregatedRules(role: ClusterRole, all: readonly ClusterRole[]): PolicyRule[] {
  const selectors = (role.aggregationRule?.clusterRoleSelectors ?? []).map(aggregationSelector);
  const names = new Set<string>();
  for (const selector of selectors) {
    for (const other of all) if (selector.matches(other.metadata?.labels)) names.add(other.metadata?.name ?? "");
  }
  const byName = new Map(all.map((r) => [r.metadata?.name ?? "", r]));
  const rules: PolicyRule[] = [];
  const seen = new Set<string>();
  for (const name of [...names].sort()) {
    if (name === role.metadata?.name) continue;
    for (const rule of byName.get(name)?.rules ?? []) {
      const key = JSON.stringify(rule);
      if (seen.has(key)) continue;
      seen.add(key);
      rules.push(rule);
    }
  }
  return rules;
}

/**
 * The ClusterRole aggregation controller: whenever a ClusterRole changes, every ClusterRole with an
 * `aggregationRule` is brought to the rules its selectors gather. An update of one aggregated role
 * is itself a change, so chains (view → edit → admin) settle on their own.
 */
export class ClusterRoleAggregationController {
  #watch: ResourceWatch | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #stopped = false;
  readonly #onError: (error: unknown) => void;

  constructor(
    private readonly clusterRoles: ResourceStore,
    onError: (error: unknown) => void = () => undefined,
  ) {
    this.#onError = onError;
  }

  /** Syncs once, then follows changes. */
  async start(): Promise<void> {
    await this.syncAll();
    const revision = (await this.clusterRoles.list(undefined, { limit: 1 })).metadata.resourceVersion;
    this.#watch = await this.clusterRoles.watch(undefined, revision === undefined ? {} : { resourceVersion: revision }, () =>
      this.#schedule(),
    );
  }

  stop(): void {
    this.#stopped = true;
    this.#watch?.stop();
  }

  /** Resolves once no sync is pending (for callers that changed a role and want the result). */
  async idle(): Promise<void> {
    while (this.#running !== undefined) await this.#running;
  }

  #schedule(): void {
    if (this.#stopped) return;
    if (this.#running !== undefined) {
      this.#again = true;
      return;
    }
    this.#running = (async () => {
      try {
        do {
          this.#again = false;
          await this.syncAll().catch((error: unknown) => {
            if (isControlPlaneError(error) && error.code === "Conflict") this.#again = true;
            else this.#onError(error);
          });
        } while (this.#again && !this.#stopped);
      } finally {
        this.#running = undefined;
      }
    })();
  }

  /** Brings every aggregated ClusterRole up to date; repeats while an update changed what others gather. */
  async syncAll(): Promise<void> {
    for (let round = 0; round < 10; round++) {
      const all = (await this.clusterRoles.list(undefined)).items as ClusterRole[];
      let changed = false;
      for (const role of all) {
        if (role.aggregationRule === undefined || role.aggregationRule === null) continue;
        const rules = aggregatedRules(role, all);
        if (JSON.stringify(rules) === JSON.stringify(role.rules ?? [])) continue;
        await this.clusterRoles.update(undefined, role.metadata?.name ?? "", { ...role, rules });
        changed = true;
      }
      if (!changed) return;
    }
  }
}
