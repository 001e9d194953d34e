import type { QuotaEvaluator } from "@kubekit/generic-controlplane/registry";
import { podQuotaEvaluator } from "./pod-evaluator.js";
import { claimQuotaEvaluator } from "./pvc-evaluator.js";
import { serviceQuotaEvaluator } from "./service-evaluator.js";

/** The quota evaluators of the core workload types the sim cluster serves (kube-controller-manager's `core` evaluators). */
export const simQuotaEvaluators: readonly QuotaEvaluator[] = [podQuotaEvaluator, serviceQuotaEvaluator, claimQuotaEvaluator];
