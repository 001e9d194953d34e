import type { Job, JobSpec } from "../resources/jobs.js";
import type { ContainerStatus, Pod } from "../resources/pods.js";
import { parseIndexes } from "./job-indexes.js";

/** What a pod failure policy says of a failed pod: the job failure message (FailJob), whether it counts, and the action matched. */
export interface FailureVerdict {
  failJobMessage?: string;
  countFailed: boolean;
  action?: string;
}

function terminatedExitCode(status: ContainerStatus): number | undefined {
  const terminated = status.state?.["terminated"] as { exitCode?: number } | undefined;
  return terminated?.exitCode;
}

/** matchPodFailurePolicy: the first rule a failed pod matches, by its containers' non-zero exit codes or its conditions. */
export function matchPodFailurePolicy(spec: JobSpec, pod: Pod): FailureVerdict {
  const rules = spec.podFailurePolicy?.rules ?? [];
  for (const [index, rule] of rules.entries()) {
    const action = rule.action ?? "";
    let matched: string | undefined;
    if (rule.onExitCodes) {
      const requirement = rule.onExitCodes;
      const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
      for (const status of statuses) {
        if (requirement.containerName !== undefined && requirement.containerName !== status.name) continue;
        const exitCode = terminatedExitCode(status);
        if (exitCode === undefined || exitCode === 0) continue;
        const listed = (requirement.values ?? []).includes(exitCode);
        if (requirement.operator === "In" ? listed : !listed) {
          matched = `Container ${status.name} for pod ${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""} failed with exit code ${exitCode} matching ${action} rule at index ${index}`;
          break;
        }
      }
    } else {
      for (const pattern of rule.onPodConditions ?? []) {
        const condition = pod.status?.conditions?.find((c) => c.type === pattern.type && c.status === (pattern.status ?? "True"));
        if (condition !== undefined) {
          matched = `Pod ${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""} has condition ${condition.type} matching ${action} rule at index ${index}`;
          break;
        }
      }
    }
    if (matched === undefined) continue;
    switch (action) {
      case "FailJob":
        return { failJobMessage: matched, countFailed: true, action };
      case "Ignore":
        return { countFailed: false, action };
      default:
        return { countFailed: true, action };
    }
  }
  return { countFailed: true };
}

/** matchSuccessPolicy: the first rule the succeeded indexes satisfy, as its message. */
export function matchSuccessPolicy(job: Job, succeeded: ReadonlySet<number>): string | undefined {
  const rules = job.spec?.successPolicy?.rules;
  const completions = job.spec?.completions ?? 0;
  if (rules === undefined || succeeded.size === 0) return undefined;
  for (const [index, rule] of rules.entries()) {
    if (rule.succeededIndexes !== undefined) {
      const required = parseIndexes(rule.succeededIndexes, completions);
      if (typeof required === "string" || required.length === 0) continue;
      let contained = 0;
      let all = true;
      for (const [first, last] of required) {
        for (let i = first; i <= last; i++) {
          if (succeeded.has(i)) contained++;
          else all = false;
        }
      }
      if (rule.succeededCount === undefined ? all : contained >= rule.succeededCount) return `Matched rules at index ${index}`;
    } else if (rule.succeededCount !== undefined && succeeded.size >= rule.succeededCount) {
      return `Matched rules at index ${index}`;
    }
  }
  return undefined;
}
