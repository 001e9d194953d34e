import type { KubeObject } from "../api/types.js";
import type { PrinterColumn } from "../registry/rest/resource-definition.js";
import type { FieldError } from "../validation/field-errors.js";
import { fieldInvalid, fieldRequired, isDNS1123Subdomain, isQualifiedName, validateImmutableField } from "../validation/index.js";
import { asRecord } from "./define.js";
import { timestampSince } from "../api/human-duration.js";

/**
 * Both event APIs are one internal type upstream (`core.Event`); validation, printing and field
 * selectors work on it. Here the internal form is the core/v1 JSON shape, and events.k8s.io/v1
 * objects are converted to it first. Error paths use the internal field names, as upstream does.
 */

export interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

export interface CoreEvent extends KubeObject {
  involvedObject?: ObjectReference;
  reason?: string;
  message?: string;
  source?: { component?: string; host?: string };
  firstTimestamp?: string;
  lastTimestamp?: string;
  count?: number;
  type?: string;
  eventTime?: string;
  series?: { count?: number; lastObservedTime?: string };
  action?: string;
  related?: ObjectReference;
  reportingComponent?: string;
  reportingInstance?: string;
}

export type EventApi = "v1" | "events.k8s.io/v1";

export const REPORTING_INSTANCE_LENGTH_LIMIT = 128;
export const ACTION_LENGTH_LIMIT = 128;
export const REASON_LENGTH_LIMIT = 128;
export const NOTE_LENGTH_LIMIT = 1024;

const str = (value: unknown): string => (typeof value === "string" ? value : "");

/** `legacyValidateEvent`: every event, whichever API wrote it, passes these. */
function legacyValidateEvent(event: CoreEvent, api: EventApi): FieldError[] {
  const errors: FieldError[] = [];
  const namespace = event.metadata?.namespace ?? "";
  const involvedNamespace = str(event.involvedObject?.namespace);
  const reportingField = api === "v1" ? "reportingComponent" : "reportingController";
  if (event.eventTime === undefined) {
    // Old-style events: the event lives in its object's namespace (or default, for cluster-scoped objects).
    if (involvedNamespace === "") {
      if (namespace !== "" && namespace !== "default")
        errors.push(fieldInvalid("involvedObject.namespace", involvedNamespace, "does not match event.namespace"));
    } else if (namespace !== involvedNamespace) {
      errors.push(fieldInvalid("involvedObject.namespace", involvedNamespace, "does not match event.namespace"));
    }
  } else {
    if (involvedNamespace === "" && namespace !== "default" && namespace !== "kube-system") {
      errors.push(fieldInvalid("involvedObject.namespace", involvedNamespace, "does not match event.namespace"));
    }
    const controller = str(event.reportingComponent);
    if (controller === "") errors.push(fieldRequired(reportingField));
    for (const msg of isQualifiedName(controller)) errors.push(fieldInvalid(reportingField, controller, msg));
    const instance = str(event.reportingInstance);
    if (instance === "") errors.push(fieldRequired("reportingInstance"));
    if (instance.length > REPORTING_INSTANCE_LENGTH_LIMIT)
      errors.push(fieldInvalid("reportingInstance", "", `can have at most ${REPORTING_INSTANCE_LENGTH_LIMIT} characters`));
    const action = str(event.action);
    if (action === "") errors.push(fieldRequired("action"));
    if (action.length > ACTION_LENGTH_LIMIT) errors.push(fieldInvalid("action", "", `can have at most ${ACTION_LENGTH_LIMIT} characters`));
    const reason = str(event.reason);
    if (reason === "") errors.push(fieldRequired("reason"));
    if (reason.length > REASON_LENGTH_LIMIT) errors.push(fieldInvalid("reason", "", `can have at most ${REASON_LENGTH_LIMIT} characters`));
    if (str(event.message).length > NOTE_LENGTH_LIMIT)
      errors.push(fieldInvalid("message", "", `can have at most ${NOTE_LENGTH_LIMIT} characters`));
  }
  if (namespace !== "") {
    for (const msg of isDNS1123Subdomain(namespace)) errors.push(fieldInvalid("namespace", namespace, msg));
  }
  return errors;
}

function validateSeries(event: CoreEvent): FieldError[] {
  const errors: FieldError[] = [];
  if (event.series !== undefined && event.series !== null) {
    if ((event.series.count ?? 0) < 2) errors.push(fieldInvalid("series.count", "", "should be at least 2"));
    if (event.series.lastObservedTime === undefined) errors.push(fieldRequired("series.lastObservedTime"));
  }
  return errors;
}

/** `ValidateEventCreate`: core/v1 writes get only the legacy rules; events.k8s.io/v1 writes are strict. */
export function validateEventCreate(event: CoreEvent, api: EventApi): FieldError[] {
  const errors = legacyValidateEvent(event, api);
  if (api === "v1") return errors;
  errors.push(...validateSeries(event));
  if (event.eventTime === undefined) errors.push(fieldRequired("eventTime"));
  if (event.type !== "Normal" && event.type !== "Warning") errors.push(fieldInvalid("type", "", `has invalid value: ${event.type ?? ""}`));
  if (event.firstTimestamp !== undefined) errors.push(fieldInvalid("firstTimestamp", "", "needs to be unset"));
  if (event.lastTimestamp !== undefined) errors.push(fieldInvalid("lastTimestamp", "", "needs to be unset"));
  if ((event.count ?? 0) !== 0) errors.push(fieldInvalid("count", "", "needs to be unset"));
  if (str(event.source?.component) !== "" || str(event.source?.host) !== "") errors.push(fieldInvalid("source", "", "needs to be unset"));
  return errors;
}

/** `ValidateEventUpdate`: strict updates keep everything but the series and metadata. */
export function validateEventUpdate(event: CoreEvent, old: CoreEvent, api: EventApi): FieldError[] {
  const errors = legacyValidateEvent(event, api);
  if (api === "v1") return errors;
  if (JSON.stringify(event.series ?? null) !== JSON.stringify(old.series ?? null)) errors.push(...validateSeries(event));
  const immutable: Array<[keyof CoreEvent, string]> = [
    ["involvedObject", "involvedObject"],
    ["reason", "reason"],
    ["message", "message"],
    ["source", "source"],
    ["firstTimestamp", "firstTimestamp"],
    ["lastTimestamp", "lastTimestamp"],
    ["count", "count"],
    ["reason", "reason"],
    ["type", "type"],
    ["eventTime", "eventTime"],
    ["action", "action"],
    ["related", "related"],
    ["reportingComponent", "reportingController"],
    ["reportingInstance", "reportingInstance"],
  ];
  for (const [key, path] of immutable) errors.push(...validateImmutableField(emptyAsUnset(event[key]), emptyAsUnset(old[key]), path));
  return errors;
}

/** Go compares zero values; JSON may carry them as absent, "" or 0. */
function emptyAsUnset(value: unknown): unknown {
  if (value === "" || value === 0 || value === null) return undefined;
  const record = asRecord(value);
  if (record && Object.values(record).every((v) => v === undefined || v === "")) return undefined;
  return value;
}

/** `ToSelectableFields` of the event registry (keys in core/v1 spelling). */
export function eventSelectableFields(event: CoreEvent): Record<string, string> {
  const ref = event.involvedObject ?? {};
  const component = str(event.source?.component);
  return {
    "involvedObject.kind": str(ref.kind),
    "involvedObject.namespace": str(ref.namespace),
    "involvedObject.name": str(ref.name),
    "involvedObject.uid": str(ref.uid),
    "involvedObject.apiVersion": str(ref.apiVersion),
    "involvedObject.resourceVersion": str(ref.resourceVersion),
    "involvedObject.fieldPath": str(ref.fieldPath),
    reason: str(event.reason),
    reportingComponent: str(event.reportingComponent),
    source: component === "" ? str(event.reportingComponent) : component,
    type: str(event.type),
  };
}

function firstNonEmpty(...values: unknown[]): string {
  for (const value of values) if (typeof value === "string" && value !== "") return value;
  return "";
}

/** The cells of upstream's `printEvent` (always the wide form; kubectl hides priority > 0 columns). */
export function eventCells(event: CoreEvent, now: number = Date.now()): unknown[] {
  const firstTimestamp =
    event.firstTimestamp !== undefined ? timestampSince(event.firstTimestamp, now) : timestampSince(event.eventTime, now);
  let lastTimestamp = event.lastTimestamp !== undefined ? timestampSince(event.lastTimestamp, now) : firstTimestamp;
  let count = event.count ?? 0;
  if (event.series) {
    lastTimestamp = timestampSince(event.series.lastObservedTime, now);
    count = event.series.count ?? 0;
  } else if (count === 0) {
    // Singleton events have no count in the newer API.
    count = 1;
  }
  const kind = str(event.involvedObject?.kind).toLowerCase();
  const name = str(event.involvedObject?.name);
  const target = name === "" ? kind : `${kind}/${name}`;
  const component = firstNonEmpty(event.source?.component, event.reportingComponent);
  const instance = firstNonEmpty(event.source?.host, event.reportingInstance);
  const source = instance === "" ? component : `${component}, ${instance}`;
  return [
    lastTimestamp,
    str(event.type),
    str(event.reason),
    target,
    str(event.involvedObject?.fieldPath),
    source,
    str(event.message).trim(),
    firstTimestamp,
    count,
    event.metadata?.name ?? "",
  ];
}

/** Upstream's event columns; the last one is the object name (so no separate NAME column is added). */
export function eventPrinterColumns<T extends KubeObject>(toCore: (object: T) => CoreEvent): PrinterColumn<T>[] {
  const cell = (index: number) => (object: T) => eventCells(toCore(object))[index];
  return [
    {
      name: "Last Seen",
      type: "string",
      description: "The time at which the most recent occurrence of this event was recorded.",
      cell: cell(0),
    },
    {
      name: "Type",
      type: "string",
      description: "Type of this event (Normal, Warning), new types could be added in the future",
      cell: cell(1),
    },
    {
      name: "Reason",
      type: "string",
      description:
        "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
      cell: cell(2),
    },
    { name: "Object", type: "string", description: "The object that this event is about.", cell: cell(3) },
    {
      name: "Subobject",
      type: "string",
      priority: 1,
      description:
        "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go-field access statement.",
      cell: cell(4),
    },
    { name: "Source", type: "string", priority: 1, description: "The component reporting this event.", cell: cell(5) },
    { name: "Message", type: "string", description: "A human-readable description of the status of this operation.", cell: cell(6) },
    { name: "First Seen", type: "string", priority: 1, description: "The time at which the event was first recorded.", cell: cell(7) },
    { name: "Count", type: "string", priority: 1, description: "The number of times this event has occurred.", cell: cell(8) },
    { name: "Name", type: "string", priority: 1, format: "name", description: "Name must be unique within a namespace.", cell: cell(9) },
  ];
}
