import type { CelFunc } from "@bufbuild/cel";
import { optionalLibrary } from "./optional.js";

/** Kubernetes' CEL libraries (k8s.io/apiserver `pkg/cel/library`). */
export const kubernetesLibraries: readonly CelFunc[] = [...optionalLibrary];
