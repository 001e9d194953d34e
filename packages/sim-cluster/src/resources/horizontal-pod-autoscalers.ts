import {
  childPath,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  indexPath,
  isValidPathSegmentName,
  type FieldError,
} from "@kubekit/generic-controlplane/registry";
import { ageColumn } from "./columns.js";
import { defineResource } from "./define.js";
import {
  hpaV1ToV2,
  hpaV2ToV1,
  type HorizontalPodAutoscaler,
  type HorizontalPodAutoscalerV1,
  type MetricSpec,
  type MetricStatus,
  type MetricTarget,
} from "./hpa-conversion.js";
import { componentSchema } from "./openapi/component-schema.js";

const METRIC_TYPES = ["ContainerResource", "External", "Object", "Pods", "Resource"];
const TARGET_TYPES = ["AverageValue", "Utilization", "Value"];
const DEFAULT_CPU_UTILIZATION = 80;

/** SetDefaults_HorizontalPodAutoscaler (v2): one replica at least, a CPU target of 80%, behavior's unset rules filled. */
function defaultHPA(hpa: HorizontalPodAutoscaler): void {
  const spec = (hpa.spec ??= {});
  spec.minReplicas ??= 1;
  if (spec.metrics === undefined || spec.metrics.length === 0)
    spec.metrics = [
      { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: DEFAULT_CPU_UTILIZATION } } },
    ];
  const behavior = spec.behavior;
  if (behavior !== undefined) {
    const scaleUp = (behavior["scaleUp"] ??= {}) as Record<string, unknown>;
    scaleUp["stabilizationWindowSeconds"] ??= 0;
    scaleUp["selectPolicy"] ??= "Max";
    scaleUp["policies"] ??= [
      { type: "Pods", value: 4, periodSeconds: 15 },
      { type: "Percent", value: 100, periodSeconds: 15 },
    ];
    const scaleDown = (behavior["scaleDown"] ??= {}) as Record<string, unknown>;
    scaleDown["selectPolicy"] ??= "Max";
    scaleDown["policies"] ??= [{ type: "Percent", value: 100, periodSeconds: 15 }];
  }
}

function validateTarget(target: MetricTarget | undefined, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const type = target?.type ?? "";
  if (type === "") errors.push(fieldRequired(childPath(path, "type"), "must specify a metric target type"));
  else if (!TARGET_TYPES.includes(type)) errors.push(fieldNotSupported(childPath(path, "type"), type, TARGET_TYPES));
  if (target?.averageUtilization !== undefined && target.averageUtilization < 1)
    errors.push(fieldInvalid(childPath(path, "averageUtilization"), target.averageUtilization, "must be greater than 0"));
  if (target?.value === undefined && target?.averageValue === undefined && target?.averageUtilization === undefined)
    errors.push(fieldRequired(path, "must set either a target value, average value, or average utilization"));
  return errors;
}

function validateMetric(metric: MetricSpec, at: string): FieldError[] {
  const type = metric.type ?? "";
  if (type === "") return [fieldRequired(childPath(at, "type"), "must specify a metric source type")];
  if (!METRIC_TYPES.includes(type)) return [fieldNotSupported(childPath(at, "type"), type, METRIC_TYPES)];
  const field = type === "ContainerResource" ? "containerResource" : type.toLowerCase();
  const source = (metric as Record<string, { name?: string; metric?: { name?: string }; target?: MetricTarget } | undefined>)[field];
  if (source === undefined) return [fieldRequired(childPath(at, field), `must populate information for the given metric source`)];
  const errors: FieldError[] = [];
  const sourcePath = childPath(at, field);
  if (type === "Resource" || type === "ContainerResource") {
    if (!source.name) errors.push(fieldRequired(childPath(sourcePath, "name"), "must specify a resource name"));
  } else if (!source.metric?.name)
    errors.push(fieldRequired(childPath(childPath(sourcePath, "metric"), "name"), "must specify a metric name"));
  errors.push(...validateTarget(source.target, childPath(sourcePath, "target")));
  return errors;
}

/** ValidateHorizontalPodAutoscaler (v2 form): a scale target, 1 ≤ minReplicas ≤ maxReplicas, and each metric's source and target. */
export function validateHPA(hpa: HorizontalPodAutoscaler): FieldError[] {
  const errors: FieldError[] = [];
  const spec = hpa.spec ?? {};
  const ref = spec.scaleTargetRef ?? {};
  if (!ref.kind) errors.push(fieldRequired("spec.scaleTargetRef.kind"));
  else errors.push(...isValidPathSegmentName(ref.kind).map((m) => fieldInvalid("spec.scaleTargetRef.kind", ref.kind, m)));
  if (!ref.name) errors.push(fieldRequired("spec.scaleTargetRef.name"));
  else errors.push(...isValidPathSegmentName(ref.name).map((m) => fieldInvalid("spec.scaleTargetRef.name", ref.name, m)));
  if (spec.minReplicas !== undefined && spec.minReplicas < 1)
    errors.push(fieldInvalid("spec.minReplicas", spec.minReplicas, "must be greater than or equal to 1"));
  const max = spec.maxReplicas ?? 0;
  if (max < 1) errors.push(fieldInvalid("spec.maxReplicas", max, "must be greater than 0"));
  if (spec.minReplicas !== undefined && max < spec.minReplicas)
    errors.push(fieldInvalid("spec.maxReplicas", max, "must be greater than or equal to `minReplicas`"));
  (spec.metrics ?? []).forEach((metric, i) => errors.push(...validateMetric(metric, indexPath("spec.metrics", i))));
  return errors;
}

function quantity(value: string | number | undefined): string {
  return value === undefined ? "<unknown>" : String(value);
}

/** formatHPAMetrics: `cpu: 40%/80%` per metric, `<unknown>` before the first measurement, at most two then `+ N more...`. */
export function targetsCell(hpa: HorizontalPodAutoscaler): string {
  const specs = hpa.spec?.metrics ?? [];
  if (specs.length === 0) return "<none>";
  const statuses: MetricStatus[] = hpa.status?.currentMetrics ?? [];
  const list = specs.map((spec, i) => {
    const status = statuses[i];
    if (spec.type === "Resource" || spec.type === "ContainerResource") {
      const source = spec.type === "Resource" ? spec.resource : spec.containerResource;
      const current = spec.type === "Resource" ? status?.resource?.current : status?.containerResource?.current;
      const name = source?.name ?? "";
      if (source?.target?.averageValue !== undefined)
        return `${name}: ${quantity(current?.averageValue)}/${quantity(source.target.averageValue)}`;
      const now = current?.averageUtilization !== undefined ? `${current.averageUtilization}%` : "<unknown>";
      const target = source?.target?.averageUtilization !== undefined ? `${source.target.averageUtilization}%` : "<auto>";
      return `${name}: ${now}/${target}`;
    }
    const source = spec.type === "Pods" ? spec.pods : spec.type === "Object" ? spec.object : spec.external;
    const target = source?.target?.averageValue ?? source?.target?.value;
    return `<unknown>/${quantity(target)}${source?.target?.averageValue !== undefined && spec.type !== "Pods" ? " (avg)" : ""}`;
  });
  const max = 2;
  return list.length > max ? `${list.slice(0, max).join(", ")} + ${list.length - max} more...` : list.join(", ");
}

function printerColumns<T>(asV2: (object: T) => HorizontalPodAutoscaler) {
  return [
    {
      name: "Reference",
      type: "string" as const,
      description:
        "scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count.",
      cell: (o: T) => `${asV2(o).spec?.scaleTargetRef?.kind ?? ""}/${asV2(o).spec?.scaleTargetRef?.name ?? ""}`,
    },
    {
      name: "Targets",
      type: "string" as const,
      description:
        "metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).",
      cell: (o: T) => targetsCell(asV2(o)),
    },
    {
      name: "MinPods",
      type: "string" as const,
      description: "minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.",
      cell: (o: T) => (asV2(o).spec?.minReplicas === undefined ? "<unset>" : String(asV2(o).spec?.minReplicas)),
    },
    {
      name: "MaxPods",
      type: "integer" as const,
      description: "maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up.",
      cell: (o: T) => asV2(o).spec?.maxReplicas ?? 0,
    },
    {
      name: "Replicas",
      type: "integer" as const,
      description: "currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.",
      cell: (o: T) => asV2(o).status?.currentReplicas ?? 0,
    },
    ageColumn(),
  ];
}

const v2Schema = componentSchema("io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler");

const v1Schema = componentSchema("io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler");

const COMMON = {
  group: "autoscaling",
  kind: "HorizontalPodAutoscaler",
  plural: "horizontalpodautoscalers",
  singular: "horizontalpodautoscaler",
  scope: "Namespaced" as const,
  shortNames: ["hpa"],
  categories: ["all"],
  statusSubresource: true,
};

/** autoscaling/v2 HorizontalPodAutoscaler (with /status), the stored version. Nothing measures metrics or scales targets. */
export const horizontalPodAutoscalersResource = defineResource<HorizontalPodAutoscaler>({
  ...COMMON,
  version: "v2",
  schema: v2Schema,
  printerColumns: printerColumns<HorizontalPodAutoscaler>((hpa) => hpa),
  strategy: {
    prepareForCreate: (hpa) => {
      defaultHPA(hpa);
      // The autoscaler reports status; `desiredReplicas` is never omitted.
      hpa.status = { desiredReplicas: 0 };
    },
    prepareForUpdate: defaultHPA,
    validate: validateHPA,
    validateUpdate: validateHPA,
  },
});

/** autoscaling/v1 HorizontalPodAutoscaler: the same objects as v2, converted on every read and write. */
export const horizontalPodAutoscalersV1Resource = defineResource<HorizontalPodAutoscalerV1>({
  ...COMMON,
  version: "v1",
  schema: v1Schema,
  printerColumns: printerColumns<HorizontalPodAutoscalerV1>(hpaV1ToV2),
  storedAs: {
    group: "autoscaling",
    plural: "horizontalpodautoscalers",
    toStorage: (object) => {
      const v2 = hpaV1ToV2(object);
      defaultHPA(v2);
      return v2;
    },
    fromStorage: hpaV2ToV1,
  },
  strategy: {
    prepareForCreate: (hpa) => {
      (hpa.spec ??= {}).minReplicas ??= 1;
      hpa.status = { currentReplicas: 0, desiredReplicas: 0 };
    },
    validate: (hpa) => validateHPA(hpaV1ToV2(hpa)),
    validateUpdate: (hpa) => validateHPA(hpaV1ToV2(hpa)),
  },
});
