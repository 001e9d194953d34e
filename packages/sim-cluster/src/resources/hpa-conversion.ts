import type { KubeObject } from "@kubekit/generic-controlplane";

/**
 * autoscaling/v1 ⇄ autoscaling/v2 HorizontalPodAutoscalers, as upstream's conversion through the
 * internal type: v1's CPU target is v2's `cpu` Utilization metric; what v1 cannot say (other
 * metrics, behavior, conditions, other current metrics) travels in v1 annotations.
 */

export interface MetricTarget {
  type?: string;
  value?: string | number;
  averageValue?: string | number;
  averageUtilization?: number;
}

export interface MetricSpec {
  type?: string;
  resource?: { name?: string; target?: MetricTarget };
  containerResource?: { name?: string; container?: string; target?: MetricTarget };
  pods?: { metric?: { name?: string }; target?: MetricTarget };
  object?: { metric?: { name?: string }; describedObject?: Record<string, unknown>; target?: MetricTarget };
  external?: { metric?: { name?: string }; target?: MetricTarget };
}

export interface MetricStatus {
  type?: string;
  resource?: { name?: string; current?: { averageUtilization?: number; averageValue?: string | number; value?: string | number } };
  containerResource?: {
    name?: string;
    container?: string;
    current?: { averageUtilization?: number; averageValue?: string | number; value?: string | number };
  };
  [field: string]: unknown;
}

export interface ScaleTargetRef {
  kind?: string;
  name?: string;
  apiVersion?: string;
}

export interface HorizontalPodAutoscaler extends KubeObject {
  spec?: {
    scaleTargetRef?: ScaleTargetRef;
    minReplicas?: number;
    maxReplicas?: number;
    metrics?: MetricSpec[];
    behavior?: Record<string, unknown>;
  };
  status?: {
    observedGeneration?: number;
    lastScaleTime?: string;
    currentReplicas?: number;
    desiredReplicas?: number;
    currentMetrics?: MetricStatus[];
    conditions?: unknown[];
  };
}

export interface HorizontalPodAutoscalerV1 extends KubeObject {
  spec?: { scaleTargetRef?: ScaleTargetRef; minReplicas?: number; maxReplicas?: number; targetCPUUtilizationPercentage?: number };
  status?: {
    observedGeneration?: number;
    lastScaleTime?: string;
    currentReplicas?: number;
    desiredReplicas?: number;
    currentCPUUtilizationPercentage?: number;
  };
}

const METRICS_ANNOTATION = "autoscaling.alpha.kubernetes.io/metrics";
const CURRENT_METRICS_ANNOTATION = "autoscaling.alpha.kubernetes.io/current-metrics";
const CONDITIONS_ANNOTATION = "autoscaling.alpha.kubernetes.io/conditions";
const BEHAVIOR_ANNOTATION = "autoscaling.alpha.kubernetes.io/behavior";
const CONVERSION_ANNOTATIONS = [METRICS_ANNOTATION, CURRENT_METRICS_ANNOTATION, CONDITIONS_ANNOTATION, BEHAVIOR_ANNOTATION];

const isCPUUtilization = (metric: MetricSpec) =>
  metric.type === "Resource" && metric.resource?.name === "cpu" && metric.resource.target?.averageUtilization !== undefined;
const isCPUStatus = (metric: MetricStatus) =>
  metric.type === "Resource" && metric.resource?.name === "cpu" && metric.resource.current?.averageUtilization !== undefined;

function readAnnotation<T>(annotations: Record<string, string>, key: string): T | undefined {
  if (!Object.hasOwn(annotations, key)) return undefined;
  try {
    return JSON.parse(annotations[key]!) as T;
  } catch {
    return undefined;
  }
}

/** The v2 form of an autoscaling/v1 object. */
export function hpaV1ToV2(object: KubeObject): HorizontalPodAutoscaler {
  const hpa = object as HorizontalPodAutoscalerV1;
  const annotations = { ...(hpa.metadata?.annotations ?? {}) };
  const spec = hpa.spec ?? {};
  const metrics = [...(readAnnotation<MetricSpec[]>(annotations, METRICS_ANNOTATION) ?? [])];
  if (spec.targetCPUUtilizationPercentage !== undefined)
    metrics.unshift({
      type: "Resource",
      resource: { name: "cpu", target: { type: "Utilization", averageUtilization: spec.targetCPUUtilizationPercentage } },
    });
  const behavior = readAnnotation<Record<string, unknown>>(annotations, BEHAVIOR_ANNOTATION);
  const status = hpa.status;
  const currentMetrics = [...(readAnnotation<MetricStatus[]>(annotations, CURRENT_METRICS_ANNOTATION) ?? [])];
  if (status?.currentCPUUtilizationPercentage !== undefined)
    currentMetrics.unshift({
      type: "Resource",
      resource: { name: "cpu", current: { averageUtilization: status.currentCPUUtilizationPercentage } },
    });
  const conditions = readAnnotation<unknown[]>(annotations, CONDITIONS_ANNOTATION);
  for (const key of CONVERSION_ANNOTATIONS) delete annotations[key];
  const metadata = { ...(hpa.metadata ?? {}) };
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  else delete metadata.annotations;
  const out: HorizontalPodAutoscaler = {
    ...hpa,
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata,
    spec: {
      ...(spec.scaleTargetRef !== undefined ? { scaleTargetRef: spec.scaleTargetRef } : {}),
      ...(spec.minReplicas !== undefined ? { minReplicas: spec.minReplicas } : {}),
      ...(spec.maxReplicas !== undefined ? { maxReplicas: spec.maxReplicas } : {}),
      ...(metrics.length > 0 ? { metrics } : {}),
      ...(behavior !== undefined ? { behavior } : {}),
    },
  };
  if (status !== undefined) {
    const { currentCPUUtilizationPercentage: _cpu, currentReplicas, ...rest } = status;
    // v2's currentReplicas is omitempty where v1's is not.
    out.status = {
      ...rest,
      ...(currentReplicas ? { currentReplicas } : {}),
      ...(currentMetrics.length > 0 ? { currentMetrics } : {}),
      ...(conditions !== undefined ? { conditions } : {}),
    };
  }
  return out;
}

/** The autoscaling/v1 form of a v2 object. */
export function hpaV2ToV1(object: KubeObject): HorizontalPodAutoscalerV1 {
  const hpa = object as HorizontalPodAutoscaler;
  const annotations: Record<string, string> = { ...(hpa.metadata?.annotations ?? {}) };
  const spec = hpa.spec ?? {};
  const metrics = spec.metrics ?? [];
  const cpu = metrics.find(isCPUUtilization);
  const others = metrics.filter((m) => m !== cpu);
  if (others.length > 0) annotations[METRICS_ANNOTATION] = JSON.stringify(others);
  if (spec.behavior !== undefined) annotations[BEHAVIOR_ANNOTATION] = JSON.stringify(spec.behavior);
  const status = hpa.status;
  const current = status?.currentMetrics ?? [];
  const currentCPU = current.find(isCPUStatus);
  const otherCurrent = current.filter((m) => m !== currentCPU);
  if (otherCurrent.length > 0) annotations[CURRENT_METRICS_ANNOTATION] = JSON.stringify(otherCurrent);
  if ((status?.conditions ?? []).length > 0) annotations[CONDITIONS_ANNOTATION] = JSON.stringify(status?.conditions);
  const metadata = { ...(hpa.metadata ?? {}) };
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  const out: HorizontalPodAutoscalerV1 = {
    ...hpa,
    apiVersion: "autoscaling/v1",
    kind: "HorizontalPodAutoscaler",
    metadata,
    spec: {
      ...(spec.scaleTargetRef !== undefined ? { scaleTargetRef: spec.scaleTargetRef } : {}),
      ...(spec.minReplicas !== undefined ? { minReplicas: spec.minReplicas } : {}),
      ...(spec.maxReplicas !== undefined ? { maxReplicas: spec.maxReplicas } : {}),
      ...(cpu?.resource?.target?.averageUtilization !== undefined
        ? { targetCPUUtilizationPercentage: cpu.resource.target.averageUtilization }
        : {}),
    },
  };
  if (status !== undefined) {
    const { currentMetrics: _metrics, conditions: _conditions, ...rest } = status;
    out.status = {
      ...rest,
      currentReplicas: rest.currentReplicas ?? 0,
      desiredReplicas: rest.desiredReplicas ?? 0,
      ...(currentCPU?.resource?.current?.averageUtilization !== undefined
        ? { currentCPUUtilizationPercentage: currentCPU.resource.current.averageUtilization }
        : {}),
    };
  }
  return out;
}
