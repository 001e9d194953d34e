import type { AdmissionAttributes, AdmissionPlugin } from "./types.js";

/**
 * The admission chain of k8s.io/apiserver's `admission.chainAdmissionHandler`: the mutating phase
 * runs every plugin's `admit` in order, each seeing what the previous one left in
 * `attributes.object`; the validating phase, run after the object passed validation, calls every
 * `validate`. The first plugin that throws ends the request with its Status.
 */
export async function runMutatingAdmission(plugins: readonly AdmissionPlugin[], attributes: AdmissionAttributes): Promise<void> {
  for (const plugin of plugins) {
    // Only a plugin that is still working is waited for: most have nothing to do for most requests.
    const working = plugin.admit?.(attributes);
    if (working !== undefined) await working;
  }
}

export async function runValidatingAdmission(plugins: readonly AdmissionPlugin[], attributes: AdmissionAttributes): Promise<void> {
  for (const plugin of plugins) {
    const working = plugin.validate?.(attributes);
    if (working !== undefined) await working;
  }
}
