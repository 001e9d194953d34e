import type { KubeObject } from "../../../api/types.js";
import { policyDenied } from "../../../api/errors/index.js";
import { isControlPlaneError, type ControlPlaneError } from "../../../api/errors/control-plane-error.js";
import type { ResourceDefinition } from "../../../registry/rest/resource-definition.js";
import type { ResourceStore } from "../../../registry/types.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../../types.js";
import type { StoreCache } from "../store-cache.js";
import { CompiledPolicy, type PolicyEvaluation } from "./compiled-policy.js";
import { labelSelectorAsSelector } from "../../../selectors/index.js";
import { storageEquivalents } from "../webhooks/equivalents.js";
import { isExemptAdmissionConfigurationResource } from "../webhooks/rules.js";
import { matchesResources } from "./matching.js";
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from "./types.js";

/**
 * The ValidatingAdmissionPolicy admission plugin (apiserver `admission/plugin/policy/validating`):
 * for every binding whose policy matches the request, resolves its params, evaluates the policy
 * and enforces failed validations by the binding's `validationActions`: Deny refuses the request
 * with `ValidatingAdmissionPolicy '<policy>' with binding '<binding>' denied request: <message>`,
 * Warn adds a `Warning` header, Audit an audit annotation. Policies and bindings are read from
 * watch-fed caches whose stores are served writing through them, so a new binding applies to the
 * very next request without a storage read per request.
 */

/** What the plugin reads from and adds to the request being served (user, warnings, audit annotations). */
export interface PolicyRequestContext {
  readonly user: { name: string; groups: string[]; uid?: string; extra?: Record<string, string[]> } | undefined;
  addWarning(text: string): void;
  addAuditAnnotation(key: string, value: string): void;
}

export interface ValidatingPolicyOptions {
  policies: StoreCache;
  bindings: StoreCache;
  namespaces?: ResourceStore | undefined;
  /** The served resources, to resolve a policy's `paramKind`. */
  served: () => readonly ResourceDefinition[];
  /** The REST storage of a served resource, to read params. */
  store: (definition: ResourceDefinition) => ResourceStore | undefined;
  /** The request being served; absent for writes made in-process. */
  requestContext?: () => PolicyRequestContext | undefined;
}

const VALIDATION_FAILURE_ANNOTATION = "validation.policy.admission.k8s.io/validation_failure";

interface Decision {
  policy: string;
  binding: string;
  message: string;
  reason: string | undefined;
  actions: string[];
  expressionIndex: number;
}

async function getOrUndefined(store: ResourceStore, namespace: string | undefined, name: string): Promise<KubeObject | undefined> {
  try {
    return await store.get(namespace, name);
  } catch (error) {
    if (isControlPlaneError(error) && error.code === "NotFound") return undefined;
    throw error;
  }
}

function groupVersionOf(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? { group: "", version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** AdmissionRequest as CEL's `request` sees it. */
function requestOf(attributes: AdmissionAttributes, context: PolicyRequestContext | undefined): Record<string, unknown> {
  const { definition } = attributes;
  const kind = { group: definition.group, version: definition.version, kind: definition.kind };
  const resource = { group: definition.group, version: definition.version, resource: definition.plural };
  const user = context?.user;
  return {
    kind,
    resource,
    subResource: attributes.subresource,
    requestKind: kind,
    requestResource: resource,
    requestSubResource: attributes.subresource,
    name: attributes.name,
    namespace: attributes.namespace ?? "",
    operation: attributes.operation,
    userInfo: { username: user?.name ?? "", uid: user?.uid ?? "", groups: user?.groups ?? [], extra: user?.extra ?? {} },
    dryRun: attributes.dryRun,
  };
}

export function validatingAdmissionPolicy(options: ValidatingPolicyOptions): AdmissionPlugin {
  const compiled = new Map<string, { version: string; policy: CompiledPolicy }>();
  const equivalents = storageEquivalents(options.served);
  const compiledPolicy = (policy: ValidatingAdmissionPolicy): CompiledPolicy => {
    const key = policy.metadata?.uid ?? policy.metadata?.name ?? "";
    const version = policy.metadata?.resourceVersion ?? "";
    const cached = compiled.get(key);
    if (cached !== undefined && cached.version === version) return cached.policy;
    const fresh = new CompiledPolicy(policy);
    compiled.set(key, { version, policy: fresh });
    return fresh;
  };

  async function paramsFor(
    policy: ValidatingAdmissionPolicy,
    binding: ValidatingAdmissionPolicyBinding,
    attributes: AdmissionAttributes,
  ): Promise<{ params: Array<KubeObject | null> } | { error: string } | { skip: true }> {
    const paramKind = policy.spec?.paramKind;
    const paramRef = binding.spec?.paramRef;
    if (paramKind === undefined) return { params: [null] };
    const { group, version } = groupVersionOf(paramKind.apiVersion ?? "");
    const definition = options.served().find((d) => d.group === group && d.version === version && d.kind === paramKind.kind);
    const store = definition === undefined ? undefined : options.store(definition);
    if (definition === undefined || store === undefined) {
      return {
        error: `failed to configure policy: failed to find resource referenced by paramKind: '${paramKind.apiVersion ?? ""}, Kind=${paramKind.kind ?? ""}'`,
      };
    }
    if (paramRef === undefined)
      return {
        error: `failed to configure binding: ValidatingAdmissionPolicy '${policy.metadata?.name ?? ""}' has paramKind but binding '${binding.metadata?.name ?? ""}' has no paramRef`,
      };
    let namespace: string | undefined;
    if (definition.scope === "Namespaced") {
      namespace = paramRef.namespace ?? attributes.namespace;
      if (namespace === undefined)
        return {
          error: "failed to configure binding: cannot use a namespaced paramKind without paramRef.namespace for a cluster-scoped request",
        };
    }
    let params: KubeObject[];
    if (paramRef.name !== undefined && paramRef.name !== "") {
      const found = await getOrUndefined(store, namespace, paramRef.name);
      params = found === undefined ? [] : [found];
    } else {
      const selector = labelSelectorAsSelector(paramRef.selector);
      params = (await store.list(namespace)).items.filter((item) => selector.matches(item.metadata?.labels));
    }
    if (params.length > 0) return { params };
    if (paramRef.parameterNotFoundAction === "Deny")
      return { error: "failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction" };
    return { skip: true };
  }

  async function validate(attributes: AdmissionAttributes): Promise<void> {
    if (isExemptAdmissionConfigurationResource(attributes)) return;
    // Bindings in name order, as the informer-fed lister upstream hands them out.
    const bindings = ((await options.bindings.all()) as ValidatingAdmissionPolicyBinding[]).sort((a, b) =>
      (a.metadata?.name ?? "") < (b.metadata?.name ?? "") ? -1 : 1,
    );
    if (bindings.length === 0) return;
    const policies = new Map(((await options.policies.all()) as ValidatingAdmissionPolicy[]).map((p) => [p.metadata?.name ?? "", p]));
    const context = options.requestContext?.();
    let namespaceObject: Promise<KubeObject | undefined> | undefined;
    const namespace = () => {
      const store = options.namespaces;
      if (store === undefined || attributes.namespace === undefined) return Promise.resolve(undefined);
      namespaceObject ??= getOrUndefined(store, undefined, attributes.namespace);
      return namespaceObject;
    };
    const decisions: Decision[] = [];
    for (const binding of bindings) {
      const policy = policies.get(binding.spec?.policyName ?? "");
      if (policy === undefined) continue;
      if (!(await matchesResources(policy.spec?.matchConstraints, attributes, { namespace, equivalents }))) continue;
      if (
        binding.spec?.matchResources !== undefined &&
        !(await matchesResources(binding.spec.matchResources, attributes, { namespace, equivalents }))
      )
        continue;
      const policyName = policy.metadata?.name ?? "";
      const bindingName = binding.metadata?.name ?? "";
      const actions = binding.spec?.validationActions ?? [];
      const failClosed = (policy.spec?.failurePolicy ?? "Fail") === "Fail";
      const fail = (message: string) => {
        if (failClosed)
          decisions.push({ policy: policyName, binding: bindingName, message, reason: undefined, actions, expressionIndex: 0 });
      };
      const resolved = await paramsFor(policy, binding, attributes);
      if ("skip" in resolved) continue;
      if ("error" in resolved) {
        fail(resolved.error);
        continue;
      }
      const namespaceValue = attributes.namespace === undefined ? null : ((await namespace()) ?? null);
      for (const params of resolved.params) {
        const evaluation: PolicyEvaluation = compiledPolicy(policy).evaluate({
          object: attributes.object ?? null,
          oldObject: attributes.oldObject ?? null,
          request: requestOf(attributes, context),
          params,
          namespaceObject: namespaceValue,
        });
        if (evaluation.kind === "skipped") continue;
        if (evaluation.kind === "error") {
          fail(evaluation.message);
          continue;
        }
        for (const outcome of evaluation.validations) {
          if (outcome.error && !failClosed) continue;
          decisions.push({
            policy: policyName,
            binding: bindingName,
            message: outcome.message,
            reason: outcome.reason,
            actions,
            expressionIndex: outcome.expressionIndex,
          });
        }
        for (const annotation of evaluation.auditAnnotations)
          context?.addAuditAnnotation(`${policyName}/${annotation.key}`, annotation.value);
      }
    }
    enforce(decisions, attributes, context);
  }

  return {
    name: "ValidatingAdmissionPolicy",
    // With no binding (which the cache can tell at once), a request gets no promise to wait for.
    validate: (attributes) => (options.bindings.peekAll()?.length === 0 ? undefined : validate(attributes)),
  };
}

function enforce(decisions: readonly Decision[], attributes: AdmissionAttributes, context: PolicyRequestContext | undefined): void {
  const audited = decisions.filter((d) => d.actions.includes("Audit"));
  if (audited.length > 0) {
    context?.addAuditAnnotation(
      VALIDATION_FAILURE_ANNOTATION,
      JSON.stringify(
        audited.map((d) => ({
          message: d.message,
          policy: d.policy,
          binding: d.binding,
          expressionIndex: d.expressionIndex,
          validationActions: d.actions,
        })),
      ),
    );
  }
  for (const decision of decisions) {
    if (decision.actions.includes("Warn")) {
      context?.addWarning(
        `Validation failed for ValidatingAdmissionPolicy '${decision.policy}' with binding '${decision.binding}': ${decision.message}`,
      );
    }
  }
  const denied = decisions.find((d) => d.actions.includes("Deny"));
  if (denied === undefined) return;
  throw denial(denied, attributes);
}

/** `ValidatingAdmissionPolicy '<policy>' with binding '<binding>' denied request: <message>`, as a Forbidden-worded Status with the validation's reason. */
function denial(decision: Decision, attributes: AdmissionAttributes): ControlPlaneError {
  const message = `ValidatingAdmissionPolicy '${decision.policy}' with binding '${decision.binding}' denied request: ${decision.message}`;
  return policyDenied(
    { group: attributes.definition.group, resource: attributes.definition.plural },
    attributes.name,
    message,
    decision.reason,
  );
}
