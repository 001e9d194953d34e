import { ControlPlaneError, type ControlPlaneErrorCode } from "./control-plane-error.js";
import { forbidden } from "./resource-errors.js";
import type { GroupResource } from "./group-resource.js";

/** The reasons a ValidatingAdmissionPolicy validation may deny with, and their Status codes. */
const POLICY_REASONS: Record<string, ControlPlaneErrorCode> = {
  Unauthorized: "Unauthorized",
  Forbidden: "Forbidden",
  Invalid: "Invalid",
  RequestEntityTooLarge: "RequestEntityTooLarge",
};

/**
 * A policy's denial (upstream `validating.dispatcher`): `admission.NewForbidden`'s message
 * (`configmaps "x" is forbidden: <message>`) with the validation's reason and its code (Invalid,
 * 422, when it names none) and the message as the one cause.
 */
export function policyDenied(resource: GroupResource, name: string, message: string, reason: string | undefined): ControlPlaneError {
  const base = forbidden(resource, name, message);
  const code = POLICY_REASONS[reason ?? "Invalid"] ?? "Invalid";
  return new ControlPlaneError(code, base.message, { details: { ...base.details, causes: [{ message }] } });
}
