import type { AdmissionPlugin, ResourceStore } from "@kubekit/generic-controlplane/registry";
import { DEFAULT_INGRESS_CLASS_ANNOTATION, type IngressClass } from "./resources/ingress-classes.js";
import type { Ingress } from "./resources/ingresses.js";

/** The annotation older Ingresses name their class with; such an Ingress is left alone. */
const LEGACY_CLASS_ANNOTATION = "kubernetes.io/ingress.class";

/**
 * The DefaultIngressClass admission plugin: a new Ingress naming no class gets the IngressClass
 * annotated `ingressclass.kubernetes.io/is-default-class: "true"` (the most recently created one
 * when several are, the lower name among those created in the same second, as upstream since 1.28).
 */
export function defaultIngressClassAdmission(ingressClasses: () => ResourceStore | undefined): AdmissionPlugin {
  return {
    name: "DefaultIngressClass",
    async admit(attributes) {
      if (
        attributes.operation !== "CREATE" ||
        attributes.definition.group !== "networking.k8s.io" ||
        attributes.definition.plural !== "ingresses" ||
        attributes.subresource !== ""
      )
        return;
      const ingress = attributes.object as Ingress | undefined;
      const store = ingressClasses();
      if (ingress === undefined || store === undefined || ingress.spec?.ingressClassName !== undefined) return;
      if (Object.hasOwn(ingress.metadata?.annotations ?? {}, LEGACY_CLASS_ANNOTATION)) return;
      const classes = (await store.list(undefined)).items as IngressClass[];
      const defaults = classes.filter((c) => c.metadata?.annotations?.[DEFAULT_INGRESS_CLASS_ANNOTATION] === "true");
      const created = (c: IngressClass) => c.metadata?.creationTimestamp ?? "";
      const name = (c: IngressClass) => c.metadata?.name ?? "";
      // RFC 3339 seconds compare as text; a tie goes to the lower name.
      const newest = defaults.sort((a, b) =>
        created(a) !== created(b) ? (created(a) < created(b) ? 1 : -1) : name(a) < name(b) ? -1 : 1,
      )[0];
      if (newest?.metadata?.name !== undefined) (ingress.spec ??= {}).ingressClassName = newest.metadata.name;
    },
  };
}
