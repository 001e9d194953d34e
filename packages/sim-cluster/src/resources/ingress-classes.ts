import type { KubeObject } from "@kubekit/generic-controlplane";
import {
  childPath,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTooLong,
  isDNS1123Subdomain,
  validateImmutableField,
  type FieldError,
} from "@kubekit/generic-controlplane/registry";
import { ageColumn, orNone } from "./columns.js";
import { defineResource } from "./define.js";
import { componentSchema } from "./openapi/component-schema.js";

/** The annotation that makes an IngressClass the cluster's default (networking/v1 AnnotationIsDefaultIngressClass). */
export const DEFAULT_INGRESS_CLASS_ANNOTATION = "ingressclass.kubernetes.io/is-default-class";

export interface IngressClass extends KubeObject {
  spec?: {
    controller?: string;
    parameters?: { apiGroup?: string; kind?: string; name?: string; scope?: string; namespace?: string };
  };
}

const MAX_CONTROLLER_LENGTH = 250;
const SCOPES = ["Cluster", "Namespace"];
const PATH_CHARACTERS = /^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/;

/** IsDomainPrefixedPath: a DNS subdomain, a slash, then a non-empty path. */
function domainPrefixedPathErrors(value: string, path: string): FieldError[] {
  const slash = value.indexOf("/");
  if (slash < 0 || slash === value.length - 1) return [fieldInvalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const host = value.slice(0, slash);
  const errors = isDNS1123Subdomain(host).map((m) => fieldInvalid(path, host, m));
  const rest = value.slice(slash + 1);
  if (!PATH_CHARACTERS.test(rest)) errors.push(fieldInvalid(path, rest, "Invalid path"));
  return errors;
}

/** ValidateIngressClass: the controller is a domain-prefixed path; parameters name a kind and a name, and a namespace exactly when scoped to one. */
export function validateIngressClass(ingressClass: IngressClass): FieldError[] {
  const errors: FieldError[] = [];
  const controller = ingressClass.spec?.controller ?? "";
  if (controller === "") errors.push(fieldRequired("spec.controller"));
  else if (controller.length > MAX_CONTROLLER_LENGTH) errors.push(fieldTooLong("spec.controller", "", MAX_CONTROLLER_LENGTH));
  else errors.push(...domainPrefixedPathErrors(controller, "spec.controller"));
  const parameters = ingressClass.spec?.parameters;
  if (parameters !== undefined) {
    const at = "spec.parameters";
    if (!parameters.kind) errors.push(fieldRequired(childPath(at, "kind")));
    if (!parameters.name) errors.push(fieldRequired(childPath(at, "name")));
    if (parameters.apiGroup)
      errors.push(...isDNS1123Subdomain(parameters.apiGroup).map((m) => fieldInvalid(childPath(at, "apiGroup"), parameters.apiGroup, m)));
    const scope = parameters.scope;
    if (scope === undefined) errors.push(fieldRequired(childPath(at, "scope")));
    else if (!SCOPES.includes(scope)) errors.push(fieldNotSupported(childPath(at, "scope"), scope, SCOPES));
    else if (scope === "Namespace" && !parameters.namespace)
      errors.push(fieldRequired(childPath(at, "namespace"), "`parameters.scope` is set to 'Namespace'"));
    else if (scope === "Cluster" && parameters.namespace !== undefined)
      errors.push(fieldForbidden(childPath(at, "namespace"), "`parameters.scope` is set to 'Cluster'"));
  }
  return errors;
}

export function validateIngressClassUpdate(ingressClass: IngressClass, old: IngressClass): FieldError[] {
  return [
    ...validateIngressClass(ingressClass),
    ...validateImmutableField(ingressClass.spec?.controller, old.spec?.controller, "spec.controller"),
  ];
}

/** SetDefaults_IngressClass: parameters without a scope are cluster-scoped. */
function prepare(ingressClass: IngressClass): void {
  const parameters = ingressClass.spec?.parameters;
  if (parameters !== undefined) parameters.scope ??= "Cluster";
}

function parametersCell(ingressClass: IngressClass): string {
  const parameters = ingressClass.spec?.parameters;
  if (parameters === undefined) return orNone(undefined);
  const kind = parameters.apiGroup ? `${parameters.kind ?? ""}.${parameters.apiGroup}` : (parameters.kind ?? "");
  return `${kind}/${parameters.name ?? ""}`;
}

const schema = componentSchema("io.k8s.api.networking.v1.IngressClass");

/** networking.k8s.io/v1 IngressClass (cluster-scoped). */
export const ingressClassesResource = defineResource<IngressClass>({
  group: "networking.k8s.io",
  version: "v1",
  kind: "IngressClass",
  plural: "ingressclasses",
  singular: "ingressclass",
  scope: "Cluster",
  tracksGeneration: true,
  schema,
  printerColumns: [
    {
      name: "Controller",
      type: "string",
      description: "Controller that is responsible for handling this class",
      cell: (c) => c.spec?.controller ?? "",
    },
    { name: "Parameters", type: "string", description: "A reference to a resource with additional parameters", cell: parametersCell },
    ageColumn(),
  ],
  strategy: {
    prepareForCreate: prepare,
    prepareForUpdate: prepare,
    validate: validateIngressClass,
    validateUpdate: validateIngressClassUpdate,
  },
});
