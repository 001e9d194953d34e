import type { AdmissionAttributes, AdmissionPlugin } from "../registry/types.js";

/** Runs mutating (`admit`) then validating (`validate`) hooks of every plugin, in order. */
export async function runAdmission(plugins: readonly AdmissionPlugin[], attributes: AdmissionAttributes): Promise<void> {
  if (plugins.length === 0) return;
  for (const plugin of plugins) if (plugin.admit) await plugin.admit(attributes);
  for (const plugin of plugins) if (plugin.validate) await plugin.validate(attributes);
}
