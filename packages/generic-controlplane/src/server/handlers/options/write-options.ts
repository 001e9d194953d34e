import { invalid } from "../../../api/errors/index.js";
import type { ControlPlaneError } from "../../../api/errors/control-plane-error.js";
import type { StatusCause } from "../../../api/types.js";
import { parseBool } from "../../request-info.js";

export type FieldValidation = "Strict" | "Warn" | "Ignore";

/** The query options of a write (meta/v1 CreateOptions, UpdateOptions, PatchOptions). */
export interface WriteOptions {
  dryRun: boolean;
  fieldManager: string | undefined;
  fieldValidation: FieldValidation;
  force: boolean | undefined;
}

/** apimachinery's `FieldManagerMaxLength`. */
const FIELD_MANAGER_MAX_LENGTH = 128;

/**
 * Parses and validates write options like apimachinery's `ValidateCreateOptions` & co.: failures
 * are a 422 against the options kind, e.g. `CreateOptions.meta.k8s.io "" is invalid: dryRun: …`.
 */
export function parseWriteOptions(
  query: URLSearchParams,
  kind: "CreateOptions" | "UpdateOptions" | "PatchOptions",
  userAgent?: string,
): WriteOptions {
  const causes: StatusCause[] = [];
  const dryRunValues = query.getAll("dryRun");
  const dryRun = parseDryRun(dryRunValues, causes);

  const fieldManager = query.get("fieldManager") ?? undefined;
  if (fieldManager !== undefined) {
    if (fieldManager.length > FIELD_MANAGER_MAX_LENGTH) {
      causes.push({
        reason: "FieldValueTooLong",
        field: "fieldManager",
        message: `Too long: may not be more than ${FIELD_MANAGER_MAX_LENGTH} bytes`,
      });
    } else if (/[^\x20-\x7e]/.test(fieldManager)) {
      causes.push({
        reason: "FieldValueInvalid",
        field: "fieldManager",
        message: `Invalid value: ${JSON.stringify(fieldManager)}: must be a printable ASCII string`,
      });
    }
  }

  const rawValidation = query.get("fieldValidation") ?? "";
  let fieldValidation: FieldValidation = "Warn";
  if (rawValidation === "Strict" || rawValidation === "Warn" || rawValidation === "Ignore") fieldValidation = rawValidation;
  else if (rawValidation !== "") {
    causes.push({
      reason: "FieldValueNotSupported",
      field: "fieldValidation",
      message: `Unsupported value: ${JSON.stringify(rawValidation)}: supported values: "", "Ignore", "Strict", "Warn"`,
    });
  }

  let force: boolean | undefined;
  const rawForce = query.get("force");
  if (rawForce !== null) {
    force = parseBool(rawForce);
    if (force === undefined)
      causes.push({
        reason: "FieldValueInvalid",
        field: "force",
        message: `Invalid value: ${JSON.stringify(rawForce)}: must be a boolean`,
      });
  }

  if (causes.length > 0) throw optionsInvalid(kind, causes);
  return { dryRun, fieldManager: fieldManager ?? managerFromUserAgent(userAgent), fieldValidation, force };
}

export function parseDryRun(values: string[], causes: StatusCause[]): boolean {
  if (values.length === 0) return false;
  const bad = values.filter((v) => v !== "All");
  if (bad.length > 0) {
    causes.push({
      reason: "FieldValueNotSupported",
      field: "dryRun",
      message: `Unsupported value: []string{${values.map((v) => JSON.stringify(v)).join(", ")}}: supported values: "All"`,
    });
    return false;
  }
  return true;
}

/** A 422 against an options kind of meta.k8s.io, as the handlers of kube-apiserver report it. */
export function optionsInvalid(kind: string, causes: StatusCause[]): ControlPlaneError {
  return invalid({ group: "meta.k8s.io", kind }, "", causes);
}

/** Upstream's default field manager: the User-Agent up to its first "/" (`kubectl`, `python-requests`, `node`). */
export function managerFromUserAgent(userAgent: string | undefined): string | undefined {
  if (userAgent === undefined || userAgent === "") return undefined;
  const prefix = userAgent
    .split("/")[0]!
    .slice(0, FIELD_MANAGER_MAX_LENGTH)
    .replace(/[^\x20-\x7e]/g, "");
  return prefix === "" ? undefined : prefix;
}
