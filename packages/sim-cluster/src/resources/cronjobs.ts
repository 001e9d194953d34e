import type { KubeObject } from "@kubekit/generic-controlplane";
import {
  childPath,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  translateTimestampSince,
  type FieldError,
} from "@kubekit/generic-controlplane/registry";
import { isKnownTimeZone, parseSchedule } from "../controllers/cron-schedule.js";
import { selectorString } from "../selector.js";
import { ageColumn, orNone } from "./columns.js";
import { defineResource } from "./define.js";
import { validateJobSpecFields } from "./job-validation.js";
import { type JobSpec } from "./jobs.js";
import { defaultPodSpec } from "./pod-spec.js";
import { componentSchema } from "./openapi/component-schema.js";

export interface CronJob extends KubeObject {
  spec?: {
    schedule?: string;
    timeZone?: string;
    startingDeadlineSeconds?: number;
    concurrencyPolicy?: string;
    suspend?: boolean;
    jobTemplate?: { metadata?: KubeObject["metadata"]; spec?: JobSpec };
    successfulJobsHistoryLimit?: number;
    failedJobsHistoryLimit?: number;
    [field: string]: unknown;
  };
  status?: {
    active?: Array<{ kind?: string; namespace?: string; name?: string; uid?: string; apiVersion?: string; resourceVersion?: string }>;
    lastScheduleTime?: string;
    lastSuccessfulTime?: string;
    [field: string]: unknown;
  };
}

const CONCURRENCY_POLICIES = ["Allow", "Forbid", "Replace"];
/** A CronJob's name leaves room for the 11 characters its Jobs' names add. */
const MAX_CRONJOB_NAME = 52;

function prepare(cronJob: CronJob): void {
  const spec = (cronJob.spec ??= {});
  spec.concurrencyPolicy ??= "Allow";
  spec.suspend ??= false;
  spec.successfulJobsHistoryLimit ??= 3;
  spec.failedJobsHistoryLimit ??= 1;
  // Only the pod template is defaulted (SetDefaults_PodSpec); the Job's own defaults come when a Job is made.
  const template = (spec.jobTemplate ??= {});
  const podTemplate = ((template.spec ??= {}).template ??= {});
  defaultPodSpec((podTemplate.spec ??= {}));
}

/** ValidateCronJobCreate/Update: the name's length, the schedule (and no TZ inside it), the time zone, the policy and the job template. */
export function validateCronJob(cronJob: CronJob): FieldError[] {
  const errors: FieldError[] = [];
  const name = cronJob.metadata?.name ?? "";
  if (name.length > MAX_CRONJOB_NAME)
    errors.push(fieldInvalid("metadata.name", name, `must be no more than ${MAX_CRONJOB_NAME} characters`));
  const spec = cronJob.spec ?? {};
  if (!spec.schedule) errors.push(fieldRequired("spec.schedule"));
  else if (/^\s*(CRON_)?TZ=/.test(spec.schedule))
    errors.push(fieldInvalid("spec.schedule", spec.schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"));
  else {
    const parsed = parseSchedule(spec.schedule);
    if ("error" in parsed) errors.push(fieldInvalid("spec.schedule", spec.schedule, parsed.error));
  }
  if (spec.timeZone !== undefined) {
    if (spec.timeZone === "" || spec.timeZone === "Local" || spec.timeZone.startsWith("/") || !isKnownTimeZone(spec.timeZone))
      errors.push(fieldInvalid("spec.timeZone", spec.timeZone, `unknown time zone ${spec.timeZone}`));
  }
  for (const field of ["startingDeadlineSeconds", "successfulJobsHistoryLimit", "failedJobsHistoryLimit"] as const) {
    const value = spec[field];
    if (typeof value === "number" && value < 0) errors.push(fieldInvalid(`spec.${field}`, value, "must be greater than or equal to 0"));
  }
  if (!spec.concurrencyPolicy) errors.push(fieldRequired("spec.concurrencyPolicy"));
  else if (!CONCURRENCY_POLICIES.includes(spec.concurrencyPolicy))
    errors.push(fieldNotSupported("spec.concurrencyPolicy", spec.concurrencyPolicy, CONCURRENCY_POLICIES));
  const jobSpec = spec.jobTemplate?.spec;
  errors.push(...validateJobSpecFields(jobSpec, "spec.jobTemplate.spec"));
  if (jobSpec?.selector !== undefined)
    errors.push(fieldInvalid(childPath("spec.jobTemplate.spec", "selector"), jobSpec.selector, "`selector` will be auto-generated"));
  if (jobSpec?.manualSelector === true)
    errors.push(fieldNotSupported(childPath("spec.jobTemplate.spec", "manualSelector"), true, ["nil", "false"]));
  return errors;
}

const schema = componentSchema("io.k8s.api.batch.v1.CronJob");

/** batch/v1 CronJob (with /status). */
export const cronJobsResource = defineResource<CronJob>({
  group: "batch",
  version: "v1",
  kind: "CronJob",
  plural: "cronjobs",
  singular: "cronjob",
  scope: "Namespaced",
  shortNames: ["cj"],
  categories: ["all"],
  statusSubresource: true,
  tracksGeneration: true,
  schema,
  printerColumns: [
    { name: "Schedule", type: "string", description: "The schedule in Cron format.", cell: (cj) => cj.spec?.schedule ?? "" },
    {
      name: "Timezone",
      type: "string",
      description: "The time zone name for the given schedule.",
      cell: (cj) => orNone(cj.spec?.timeZone),
    },
    {
      name: "Suspend",
      type: "boolean",
      description: "This flag tells the controller to suspend subsequent executions.",
      cell: (cj) => (cj.spec?.suspend === undefined ? "<unset>" : cj.spec.suspend ? "True" : "False"),
    },
    {
      name: "Active",
      type: "integer",
      description: "A list of pointers to currently running jobs.",
      cell: (cj) => cj.status?.active?.length ?? 0,
    },
    {
      name: "Last Schedule",
      type: "string",
      description: "Information when was the last time the job was successfully scheduled.",
      cell: (cj) => (cj.status?.lastScheduleTime ? translateTimestampSince(cj.status.lastScheduleTime) : "<none>"),
    },
    ageColumn(),
    {
      name: "Containers",
      type: "string",
      priority: 1,
      description: "Names of each container in the template.",
      cell: (cj) => (cj.spec?.jobTemplate?.spec?.template?.spec?.containers ?? []).map((c) => c.name ?? "").join(","),
    },
    {
      name: "Images",
      type: "string",
      priority: 1,
      description: "Images referenced by each container in the template.",
      cell: (cj) => (cj.spec?.jobTemplate?.spec?.template?.spec?.containers ?? []).map((c) => c.image ?? "").join(","),
    },
    {
      name: "Selector",
      type: "string",
      priority: 1,
      description: "A label query over pods that should match the pod count.",
      cell: (cj) => (cj.spec?.jobTemplate?.spec?.selector ? selectorString(cj.spec.jobTemplate.spec.selector) || "<none>" : "<none>"),
    },
  ],
  strategy: {
    prepareForCreate: prepare,
    prepareForUpdate: prepare,
    validate: validateCronJob,
    validateUpdate: (cronJob) => validateCronJob(cronJob),
  },
});
