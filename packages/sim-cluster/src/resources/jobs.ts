import type { KubeObject } from "@kubekit/generic-controlplane";
import { humanDuration, type FieldError } from "@kubekit/generic-controlplane/registry";
import { ageColumn } from "./columns.js";
import { defineResource } from "./define.js";
import { validateJob, validateJobUpdate } from "./job-validation.js";
import { defaultPodSpec, type PodTemplateSpec } from "./pod-spec.js";
import { componentSchema } from "./openapi/component-schema.js";
import { containersCell, imagesCell, selectorCell } from "./workloads.js";
import type { LabelSelector } from "../selector.js";

export interface PodFailurePolicyRule {
  action?: string;
  onExitCodes?: { containerName?: string; operator?: string; values?: number[] };
  onPodConditions?: Array<{ type?: string; status?: string }>;
}

export interface JobSpec {
  parallelism?: number;
  completions?: number;
  activeDeadlineSeconds?: number;
  podFailurePolicy?: { rules?: PodFailurePolicyRule[] };
  successPolicy?: { rules?: Array<{ succeededIndexes?: string; succeededCount?: number }> };
  backoffLimit?: number;
  backoffLimitPerIndex?: number;
  maxFailedIndexes?: number;
  selector?: LabelSelector;
  manualSelector?: boolean;
  template?: PodTemplateSpec;
  ttlSecondsAfterFinished?: number;
  completionMode?: string;
  suspend?: boolean;
  podReplacementPolicy?: string;
  managedBy?: string;
  [field: string]: unknown;
}

export interface JobCondition {
  type: string;
  status: string;
  lastProbeTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface JobStatus {
  conditions?: JobCondition[];
  startTime?: string;
  completionTime?: string;
  active?: number;
  succeeded?: number;
  failed?: number;
  terminating?: number;
  ready?: number;
  completedIndexes?: string;
  failedIndexes?: string;
  uncountedTerminatedPods?: { succeeded?: string[]; failed?: string[] };
  [field: string]: unknown;
}

export interface Job extends KubeObject {
  spec?: JobSpec;
  status?: JobStatus;
}

/** The finalizer the Job controller keeps on its pods until it has counted them. */
export const JOB_TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking";
/** The labels a generated selector matches (and their legacy forms every Job pod also carries). */
export const CONTROLLER_UID_LABEL = "batch.kubernetes.io/controller-uid";
export const JOB_NAME_LABEL = "batch.kubernetes.io/job-name";
const LEGACY_CONTROLLER_UID_LABEL = "controller-uid";
const LEGACY_JOB_NAME_LABEL = "job-name";
/** An Indexed Job pod's index: an annotation (and a label, as with PodIndexLabel). */
export const COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index";
const MAX_INT32 = 2_147_483_647;

/**
 * SetDefaults_Job (batch/v1), and the pod template's PodSpec defaults. A Job (not a CronJob's
 * template) without labels takes its template's: `labels` reads and writes the Job's.
 */
export function defaultJobSpec(
  spec: JobSpec,
  labels?: { get(): Record<string, string> | undefined; set(labels: Record<string, string>): void },
): void {
  if (spec.completions === undefined && spec.parallelism === undefined) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  spec.parallelism ??= 1;
  spec.backoffLimit ??= spec.backoffLimitPerIndex !== undefined ? MAX_INT32 : 6;
  spec.completionMode ??= "NonIndexed";
  spec.suspend ??= false;
  spec.podReplacementPolicy ??= spec.podFailurePolicy !== undefined ? "Failed" : "TerminatingOrFailed";
  for (const rule of spec.podFailurePolicy?.rules ?? []) for (const pattern of rule.onPodConditions ?? []) pattern.status ??= "True";
  const templateLabels = spec.template?.metadata?.labels;
  if (labels !== undefined && templateLabels !== undefined && Object.keys(labels.get() ?? {}).length === 0)
    labels.set({ ...templateLabels });
  spec.template ??= {};
  spec.template.spec ??= {};
  defaultPodSpec(spec.template.spec);
}

function prepare(job: Job): void {
  job.spec ??= {};
  defaultJobSpec(job.spec, {
    get: () => job.metadata?.labels,
    set: (labels) => {
      // In place: the registry holds this metadata object and fills in its uid next.
      (job.metadata ??= {}).labels = labels;
    },
  });
}

/**
 * The job strategy's generateSelector: without `manualSelector`, the pods are labelled with the
 * Job's uid and name and the selector matches the uid. Upstream does this in Validate, the first
 * hook that sees the uid.
 */
export function generateSelector(job: Job): void {
  const spec = job.spec;
  if (spec === undefined || spec.manualSelector === true) return;
  const uid = job.metadata?.uid ?? "";
  const name = job.metadata?.name ?? "";
  spec.template ??= {};
  const metadata = (spec.template.metadata ??= {});
  const labels = (metadata.labels ??= {});
  for (const [key, value] of [
    [CONTROLLER_UID_LABEL, uid],
    [LEGACY_CONTROLLER_UID_LABEL, uid],
    [JOB_NAME_LABEL, name],
    [LEGACY_JOB_NAME_LABEL, name],
  ] as const) {
    if (!Object.hasOwn(labels, key)) labels[key] = value;
  }
  spec.selector ??= { matchLabels: { [CONTROLLER_UID_LABEL]: uid } };
}

export function jobCondition(job: Pick<Job, "status">, type: string): JobCondition | undefined {
  return job.status?.conditions?.find((c) => c.type === type && c.status === "True");
}

/** util.IsJobFinished: a Complete or Failed condition that is True. */
export function isJobFinished(job: Pick<Job, "status">): boolean {
  return jobCondition(job, "Complete") !== undefined || jobCondition(job, "Failed") !== undefined;
}

/** kubectl's STATUS column (printJob). */
function statusCell(job: Job): string {
  if (jobCondition(job, "Complete")) return "Complete";
  if (jobCondition(job, "Failed")) return "Failed";
  if (job.metadata?.deletionTimestamp !== undefined) return "Terminating";
  if (jobCondition(job, "Suspended")) return "Suspended";
  if (jobCondition(job, "FailureTarget")) return "FailureTarget";
  return "Running";
}

function completionsCell(job: Job): string {
  const succeeded = job.status?.succeeded ?? 0;
  if (job.spec?.completions !== undefined) return `${succeeded}/${job.spec.completions}`;
  const parallelism = job.spec?.parallelism ?? 0;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function durationCell(job: Job): string {
  const start = Date.parse(job.status?.startTime ?? "");
  if (!Number.isFinite(start)) return "";
  const end = job.status?.completionTime === undefined ? Date.now() : Date.parse(job.status.completionTime);
  return humanDuration(Math.max(0, end - start));
}

const schema = componentSchema("io.k8s.api.batch.v1.Job");

function validateCreate(job: Job): FieldError[] {
  return validateJob(job, { generateSelector });
}

/** batch/v1 Job (with /status). */
export const jobsResource = defineResource<Job>({
  group: "batch",
  version: "v1",
  kind: "Job",
  plural: "jobs",
  singular: "job",
  scope: "Namespaced",
  categories: ["all"],
  statusSubresource: true,
  tracksGeneration: true,
  schema,
  printerColumns: [
    { name: "Status", type: "string", description: "Status of the job.", cell: statusCell },
    { name: "Completions", type: "string", description: "The completion status of the job.", cell: completionsCell },
    { name: "Duration", type: "string", description: "Time required to complete the job.", cell: durationCell },
    ageColumn(),
    { name: "Containers", type: "string", priority: 1, description: "Names of each container in the template.", cell: containersCell },
    { name: "Images", type: "string", priority: 1, description: "Images referenced by each container in the template.", cell: imagesCell },
    {
      name: "Selector",
      type: "string",
      priority: 1,
      description: "Selector is a label query over pods that should match the replica count.",
      cell: selectorCell,
    },
  ],
  fieldSelectors: { "status.successful": (job) => String(job.status?.succeeded ?? 0) },
  strategy: {
    prepareForCreate: prepare,
    prepareForUpdate: prepare,
    validate: validateCreate,
    validateUpdate: validateJobUpdate,
  },
});
