import type { NamespaceCondition } from "../../resources/namespaces.js";
import { GroupDiscoveryFailedError } from "../discovery.js";

/** The condition types the namespace deleter owns, in upstream's order. */
export const NAMESPACE_DELETION_CONDITION_TYPES = [
  "NamespaceDeletionDiscoveryFailure",
  "NamespaceDeletionGroupVersionParsingFailure",
  "NamespaceDeletionContentFailure",
  "NamespaceContentRemaining",
  "NamespaceFinalizersRemaining",
] as const;

export type NamespaceDeletionConditionType = (typeof NAMESPACE_DELETION_CONDITION_TYPES)[number];

const OK_MESSAGES: Record<NamespaceDeletionConditionType, string> = {
  NamespaceDeletionDiscoveryFailure: "All resources successfully discovered",
  NamespaceDeletionGroupVersionParsingFailure: "All legacy kube types successfully parsed",
  NamespaceDeletionContentFailure: "All content successfully deleted, may be waiting on finalization",
  NamespaceContentRemaining: "All content successfully removed",
  NamespaceFinalizersRemaining: "All content-preserving finalizers finished",
};

const OK_REASONS: Record<NamespaceDeletionConditionType, string> = {
  NamespaceDeletionDiscoveryFailure: "ResourcesDiscovered",
  NamespaceDeletionGroupVersionParsingFailure: "ParsedGroupVersions",
  NamespaceDeletionContentFailure: "ContentDeleted",
  NamespaceContentRemaining: "ContentRemoved",
  NamespaceFinalizersRemaining: "ContentHasNoFinalizers",
};

/** What is left in a namespace after a deletion pass: instances per `resource.group`, and per finalizer. */
export interface ContentTotals {
  remainingByResource: Map<string, number>;
  remainingByFinalizer: Map<string, number>;
}

/** Go's `metav1.Now()` on the wire: RFC 3339 to the second. */
function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
}

/**
 * Turns the outcome of one deletion pass into the namespace's status conditions, with
 * upstream's reasons and messages (`pkg/controller/namespace/deletion/status_condition_utils.go`).
 */
/** A condition this deleter writes: every field set. */
type FullCondition = Required<NamespaceCondition>;

export class NamespaceConditionUpdater {
  readonly #conditions: FullCondition[] = [];
  readonly #contentErrors: string[] = [];

  processDiscoveryError(error: Error): void {
    const message =
      error instanceof GroupDiscoveryFailedError
        ? `Discovery failed for some groups, ${error.groups.size} failing: ${error.message}`
        : error.message;
    this.#conditions.push({
      type: "NamespaceDeletionDiscoveryFailure",
      status: "True",
      lastTransitionTime: now(),
      reason: "DiscoveryFailed",
      message,
    });
  }

  processDeleteContentError(error: Error): void {
    this.#contentErrors.push(error.message);
  }

  processContentTotals(totals: ContentTotals): void {
    const resources = [...totals.remainingByResource].filter(([, n]) => n > 0).map(([gr, n]) => `${gr} has ${n} resource instances`);
    if (totals.remainingByResource.size > 0) {
      this.#conditions.push({
        type: "NamespaceContentRemaining",
        status: "True",
        lastTransitionTime: now(),
        reason: "SomeResourcesRemain",
        message: `Some resources are remaining: ${resources.sort().join(", ")}`,
      });
    }
    const finalizers = [...totals.remainingByFinalizer].filter(([, n]) => n > 0).map(([f, n]) => `${f} in ${n} resource instances`);
    if (totals.remainingByFinalizer.size > 0) {
      this.#conditions.push({
        type: "NamespaceFinalizersRemaining",
        status: "True",
        lastTransitionTime: now(),
        reason: "SomeFinalizersRemain",
        message: `Some content in the namespace has finalizers remaining: ${finalizers.sort().join(", ")}`,
      });
    }
  }

  /** Writes the conditions into `status` (in place); returns whether anything changed. */
  update(status: { conditions?: NamespaceCondition[] }): boolean {
    if (this.#contentErrors.length > 0 && !this.#conditions.some((c) => c.type === "NamespaceDeletionContentFailure")) {
      const messages = [...this.#contentErrors].sort();
      this.#conditions.push({
        type: "NamespaceDeletionContentFailure",
        status: "True",
        lastTransitionTime: now(),
        reason: "ContentDeletionFailed",
        message: `Failed to delete all resource types, ${messages.length} remaining: ${messages.join(", ")}`,
      });
    }
    return updateConditions(status, this.#conditions);
  }
}

/**
 * Sets each owned condition to the new one, or to its "ok" form when there is none. Transition
 * times move only when the status flips.
 */
export function updateConditions(status: { conditions?: NamespaceCondition[] }, fresh: readonly FullCondition[]): boolean {
  let changed = false;
  status.conditions ??= [];
  for (const type of NAMESPACE_DELETION_CONDITION_TYPES) {
    const next: FullCondition = fresh.find((c) => c.type === type) ?? {
      type,
      status: "False",
      lastTransitionTime: now(),
      reason: OK_REASONS[type],
      message: OK_MESSAGES[type],
    };
    const old = status.conditions.find((c) => c.type === type);
    if (old === undefined) {
      status.conditions.push({ ...next });
      changed = true;
    } else if (old.status !== next.status || old.message !== next.message || old.reason !== next.reason) {
      if (old.status !== next.status) old.lastTransitionTime = now();
      old.status = next.status;
      old.reason = next.reason;
      old.message = next.message;
      changed = true;
    }
  }
  return changed;
}
