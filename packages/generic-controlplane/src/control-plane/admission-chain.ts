import type { AdmissionPlugin } from "../admission/types.js";

/** Where the plugins of `ControlPlaneOptions.admission` run, in the order given. */
export const CONFIGURED_PLUGINS = "<configured>";

/**
 * The admission chain's order: kube-apiserver's `AllOrderedPlugins`
 * (pkg/kubeapiserver/options/plugins.go) restricted to the plugins served here. Configured plugins
 * take the place upstream keeps for new plugins, before the webhooks. The CSR plugin follows the
 * mutating webhooks because its `admit` records the requester after every mutation, as upstream's
 * strategy does; its `validate` holds CertificateApproval, CertificateSigning and
 * CertificateSubjectRestriction, which only see validation, where no plugin mutates.
 * ResourceQuota is last, charging only what every other plugin let through.
 */
export const ADMISSION_ORDER = [
  "NamespaceLifecycle",
  "LimitRanger",
  CONFIGURED_PLUGINS,
  "MutatingAdmissionWebhook",
  "CertificateSigningRequests",
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionWebhook",
  "ResourceQuota",
] as const;

export type BuiltinAdmissionPlugin = Exclude<(typeof ADMISSION_ORDER)[number], typeof CONFIGURED_PLUGINS>;

/** The chain in `ADMISSION_ORDER`, with the built-in plugins that are enabled and the configured ones. */
export function orderedAdmission(
  builtins: { readonly [name in BuiltinAdmissionPlugin]?: AdmissionPlugin | undefined },
  configured: readonly AdmissionPlugin[],
): AdmissionPlugin[] {
  return ADMISSION_ORDER.flatMap((name) => {
    if (name === CONFIGURED_PLUGINS) return configured;
    const plugin = builtins[name];
    return plugin === undefined ? [] : [plugin];
  });
}
