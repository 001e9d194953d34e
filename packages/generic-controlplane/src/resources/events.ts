import { asRecord, defineResource } from "./define.js";
import { eventPrinterColumns, eventSelectableFields, validateEventCreate, validateEventUpdate, type CoreEvent } from "./event-rules.js";
import {
  eventSourceSchema,
  int32Schema,
  kindSchema,
  microTimeSchema,
  objectReferenceSchema,
  stringSchema,
  timeSchema,
} from "./schema-parts.js";
import { canonicalMicroTime, canonicalTime, normalizeField, type DecodeTarget } from "../validation/wire-values.js";

export type { CoreEvent } from "./event-rules.js";

const TARGET: DecodeTarget = { kind: "Event", version: "v1" };

function normalize(object: CoreEvent): void {
  const record = object as Record<string, unknown>;
  normalizeField(record, "firstTimestamp", (v) => canonicalTime(v, TARGET));
  normalizeField(record, "lastTimestamp", (v) => canonicalTime(v, TARGET));
  normalizeField(record, "eventTime", (v) => canonicalMicroTime(v, TARGET));
  if (object.series === null) delete object.series;
  normalizeField(asRecord(object.series), "lastObservedTime", (v) => canonicalMicroTime(v, TARGET));
}

const schema = kindSchema({
  group: "",
  version: "v1",
  kind: "Event",
  description:
    "Event is a report of an event somewhere in the cluster. Events have a limited retention time and triggers and messages may evolve with time; do not rely on them for automation.",
  required: ["metadata", "involvedObject"],
  properties: {
    action: stringSchema("What action was taken/failed regarding to the Regarding object."),
    count: int32Schema("The number of times this event has occurred."),
    eventTime: microTimeSchema("Time when this Event was first observed."),
    firstTimestamp: timeSchema("The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)"),
    involvedObject: objectReferenceSchema("The object that this event is about."),
    lastTimestamp: timeSchema("The time at which the most recent occurrence of this event was recorded."),
    message: stringSchema("A human-readable description of the status of this operation."),
    reason: stringSchema(
      "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
    ),
    related: objectReferenceSchema("Optional secondary object for more complex actions."),
    reportingComponent: {
      type: "string",
      default: "",
      description: "Name of the controller that emitted this Event, e.g. `kubernetes.io/kubelet`.",
    },
    reportingInstance: { type: "string", default: "", description: "ID of the controller instance, e.g. `kubelet-xyzf`." },
    series: {
      type: "object",
      description: "Data about the Event series this event represents or nil if it's a singleton Event.",
      properties: {
        count: int32Schema("Number of occurrences in this series up to the last heartbeat time"),
        lastObservedTime: microTimeSchema("Time of the last occurrence observed"),
      },
    },
    source: eventSourceSchema("The component reporting this event. Should be a short machine understandable string."),
    type: stringSchema("Type of this event (Normal, Warning), new types could be added in the future"),
  },
});

/** core/v1 Event (the legacy events API; its writes get only the legacy validation, as upstream). */
export const eventsResource = defineResource<CoreEvent>({
  group: "",
  version: "v1",
  kind: "Event",
  plural: "events",
  singular: "event",
  scope: "Namespaced",
  shortNames: ["ev"],
  // Upstream applies no name rules to core/v1 events.
  nameRule: "PathSegment",
  schema,
  printerColumns: eventPrinterColumns<CoreEvent>((event) => event),
  fieldSelectors: Object.fromEntries(
    Object.keys(eventSelectableFields({})).map((key) => [key, (event: CoreEvent) => eventSelectableFields(event)[key]]),
  ),
  strategy: {
    allowCreateOnUpdate: true,
    prepareForCreate: normalize,
    prepareForUpdate: normalize,
    validate: (event) => validateEventCreate(event, "v1"),
    validateUpdate: (event, old) => validateEventUpdate(event, old, "v1"),
  },
});
