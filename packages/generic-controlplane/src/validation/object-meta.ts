import { validateLabels } from "@kubekit/apimachinery";
import type { ObjectMeta, OwnerReference } from "../api/types.js";
import type { FieldError } from "./field-errors.js";
import { childPath, fieldForbidden, fieldInvalid, fieldRequired, fieldTooLong } from "./field-errors.js";
import { FIELD_IMMUTABLE_ERROR_MSG, IS_NEGATIVE_ERROR_MSG } from "@kubekit/apimachinery";
import { isQualifiedName, nameValidatorFor, validateNamespaceName, type NameRule, type NameValidator } from "@kubekit/apimachinery";

/**
 * Object-metadata validation with the rules and messages of apimachinery's
 * `api/validation/objectmeta.go` and `apis/meta/v1/validation`.
 */

/** 256 KiB: the limit on the summed length of all annotation keys and values. */
export const TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;

export const FINALIZER_ORPHAN_DEPENDENTS = "orphan";
export const FINALIZER_DELETE_DEPENDENTS = "foregroundDeletion";

const META = "metadata";

/** `ValidateLabels`, in @kubekit/apimachinery with the label selector rules that use it. */
export { validateLabels };

export function validateAnnotations(annotations: Record<string, string> | undefined, field = childPath(META, "annotations")): FieldError[] {
  const errors: FieldError[] = [];
  let totalSize = 0;
  for (const [key, value] of Object.entries(annotations ?? {})) {
    // The rule is QualifiedName except that case doesn't matter.
    for (const msg of isQualifiedName(key.toLowerCase())) errors.push(fieldInvalid(field, key, msg));
    if (typeof value !== "string") {
      errors.push(fieldInvalid(field, value, "must be a string"));
      continue;
    }
    totalSize += Buffer.byteLength(key, "utf8") + Buffer.byteLength(value, "utf8");
  }
  if (totalSize > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) errors.push(fieldTooLong(field, "", TOTAL_ANNOTATION_SIZE_LIMIT_BYTES));
  return errors;
}

export function validateFinalizerName(name: string, field: string): FieldError[] {
  return isQualifiedName(name).map((msg) => fieldInvalid(field, name, msg));
}

export function validateFinalizers(finalizers: string[] | undefined, field = childPath(META, "finalizers")): FieldError[] {
  const errors: FieldError[] = [];
  const list = finalizers ?? [];
  for (const finalizer of list) errors.push(...validateFinalizerName(finalizer, field));
  if (list.includes(FINALIZER_ORPHAN_DEPENDENTS) && list.includes(FINALIZER_DELETE_DEPENDENTS)) {
    errors.push(
      fieldInvalid(field, list, `finalizer ${FINALIZER_ORPHAN_DEPENDENTS} and ${FINALIZER_DELETE_DEPENDENTS} cannot be both set`),
    );
  }
  return errors;
}

/** Kinds that may not own anything (core/v1 Event, like upstream's `BannedOwners`). */
const BANNED_OWNERS = new Set(["/v1/Event"]);

/** `schema.FromAPIVersionAndKind`: an unparsable apiVersion yields an empty group and version. */
function parseApiVersion(apiVersion: string): { group: string; version: string } {
  if (apiVersion === "") return { group: "", version: "" };
  const parts = apiVersion.split("/");
  if (parts.length === 1) return { group: "", version: apiVersion };
  if (parts.length === 2) return { group: parts[0] ?? "", version: parts[1] ?? "" };
  return { group: "", version: "" };
}

export function validateOwnerReferences(
  ownerReferences: OwnerReference[] | undefined,
  field = childPath(META, "ownerReferences"),
): FieldError[] {
  const errors: FieldError[] = [];
  let firstController = "";
  for (const ref of ownerReferences ?? []) {
    const { group, version } = parseApiVersion(ref.apiVersion ?? "");
    const kind = ref.kind ?? "";
    if (version === "") errors.push(fieldInvalid(childPath(field, "apiVersion"), ref.apiVersion ?? "", "version must not be empty"));
    if (kind === "") errors.push(fieldInvalid(childPath(field, "kind"), kind, "kind must not be empty"));
    if (!ref.name) errors.push(fieldInvalid(childPath(field, "name"), ref.name ?? "", "name must not be empty"));
    if (!ref.uid) errors.push(fieldInvalid(childPath(field, "uid"), ref.uid ?? "", "uid must not be empty"));
    if (BANNED_OWNERS.has(`${group}/${version}/${kind}`)) {
      const gvk = group === "" ? `/${version}, Kind=${kind}` : `${group}/${version}, Kind=${kind}`;
      errors.push(fieldInvalid(field, ref, `${gvk} is disallowed from being an owner`));
    }
    if (ref.controller === true) {
      const current = `${kind}/${ref.name}`;
      if (firstController !== "") {
        errors.push(
          fieldInvalid(
            field,
            ownerReferences,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      } else {
        firstController = current;
      }
    }
  }
  return errors;
}

export interface ObjectMetaValidationOptions {
  /** Whether the type is namespaced: namespaced objects need a namespace, cluster-scoped ones may not have one. */
  namespaced: boolean;
  /** How `metadata.name` (and `generateName`) are checked; a rule name or a custom validator. */
  nameRule?: NameRule | NameValidator;
}

/** `ValidateObjectMeta`: name/generateName, namespace, generation, labels, annotations, owner references, finalizers. */
export function validateObjectMeta(meta: ObjectMeta | undefined, options: ObjectMetaValidationOptions): FieldError[] {
  const m = meta ?? {};
  const nameFn = typeof options.nameRule === "function" ? options.nameRule : nameValidatorFor(options.nameRule);
  const errors: FieldError[] = [];
  if (m.generateName) {
    for (const msg of nameFn(m.generateName, true)) errors.push(fieldInvalid(childPath(META, "generateName"), m.generateName, msg));
  }
  if (!m.name) {
    errors.push(fieldRequired(childPath(META, "name"), "name or generateName is required"));
  } else {
    for (const msg of nameFn(m.name, false)) errors.push(fieldInvalid(childPath(META, "name"), m.name, msg));
  }
  if (options.namespaced) {
    if (!m.namespace) errors.push(fieldRequired(childPath(META, "namespace")));
    else
      for (const msg of validateNamespaceName(m.namespace, false))
        errors.push(fieldInvalid(childPath(META, "namespace"), m.namespace, msg));
  } else if (m.namespace) {
    errors.push(fieldForbidden(childPath(META, "namespace"), "not allowed on this type"));
  }
  if (m.generation !== undefined && m.generation < 0)
    errors.push(fieldInvalid(childPath(META, "generation"), m.generation, IS_NEGATIVE_ERROR_MSG));
  errors.push(...validateLabels(m.labels));
  errors.push(...validateAnnotations(m.annotations));
  errors.push(...validateOwnerReferences(m.ownerReferences));
  errors.push(...validateFinalizers(m.finalizers));
  return errors;
}

/** `ValidateNoNewFinalizers`: once deletion started, finalizers may only be removed. */
export function validateNoNewFinalizers(
  newFinalizers: string[] | undefined,
  oldFinalizers: string[] | undefined,
  field = childPath(META, "finalizers"),
): FieldError[] {
  const old = new Set(oldFinalizers ?? []);
  const extra = [...new Set((newFinalizers ?? []).filter((f) => !old.has(f)))].sort();
  if (extra.length === 0) return [];
  const goList = `[]string{${extra.map((f) => JSON.stringify(f)).join(", ")}}`;
  return [fieldForbidden(field, `no new finalizers can be added if the object is being deleted, found new finalizers ${goList}`)];
}

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** `ValidateImmutableField`: `Invalid value: <new>: field is immutable`. */
export function validateImmutableField(newValue: unknown, oldValue: unknown, field: string): FieldError[] {
  return deepEqual(newValue ?? null, oldValue ?? null) ? [] : [fieldInvalid(field, newValue, FIELD_IMMUTABLE_ERROR_MSG)];
}

/** `ValidateObjectMetaUpdate`: identity and lifecycle fields are immutable; labels etc. are re-checked. */
export function validateObjectMetaUpdate(newMeta: ObjectMeta | undefined, oldMeta: ObjectMeta | undefined): FieldError[] {
  const n = newMeta ?? {};
  const o = oldMeta ?? {};
  const errors: FieldError[] = [];
  if (o.deletionTimestamp) errors.push(...validateNoNewFinalizers(n.finalizers, o.finalizers));
  if (!n.resourceVersion)
    errors.push(fieldInvalid(childPath(META, "resourceVersion"), n.resourceVersion ?? "", "must be specified for an update"));
  if ((n.generation ?? 0) < (o.generation ?? 0))
    errors.push(fieldInvalid(childPath(META, "generation"), n.generation ?? 0, "must not be decremented"));
  errors.push(...validateImmutableField(n.name ?? "", o.name ?? "", childPath(META, "name")));
  errors.push(...validateImmutableField(n.namespace ?? "", o.namespace ?? "", childPath(META, "namespace")));
  errors.push(...validateImmutableField(n.uid ?? "", o.uid ?? "", childPath(META, "uid")));
  errors.push(...validateImmutableField(n.creationTimestamp, o.creationTimestamp, childPath(META, "creationTimestamp")));
  errors.push(...validateImmutableField(n.deletionTimestamp, o.deletionTimestamp, childPath(META, "deletionTimestamp")));
  errors.push(
    ...validateImmutableField(n.deletionGracePeriodSeconds, o.deletionGracePeriodSeconds, childPath(META, "deletionGracePeriodSeconds")),
  );
  errors.push(...validateLabels(n.labels));
  errors.push(...validateAnnotations(n.annotations));
  errors.push(...validateOwnerReferences(n.ownerReferences));
  errors.push(...validateFinalizers(n.finalizers));
  return errors;
}
