import type { KubeObject } from "../api/types.js";
import { asRecord, defineResource } from "./define.js";
import {
  eventPrinterColumns,
  eventSelectableFields,
  validateEventCreate,
  validateEventUpdate,
  type CoreEvent,
  type ObjectReference,
} from "./event-rules.js";
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

export interface EventsV1Event extends KubeObject {
  eventTime?: string;
  series?: { count?: number; lastObservedTime?: string };
  reportingController?: string;
  reportingInstance?: string;
  action?: string;
  reason?: string;
  regarding?: ObjectReference;
  related?: ObjectReference;
  note?: string;
  type?: string;
  deprecatedSource?: { component?: string; host?: string };
  deprecatedFirstTimestamp?: string;
  deprecatedLastTimestamp?: string;
  deprecatedCount?: number;
}

const TARGET: DecodeTarget = { kind: "Event", version: "events.k8s.io/v1" };

/** events.k8s.io/v1 → the core/v1 shape (upstream's conversion to the shared internal type). */
export function eventsV1ToCore(event: EventsV1Event): CoreEvent {
  const core: CoreEvent = { apiVersion: "v1", kind: "Event" };
  const set = <K extends keyof CoreEvent>(key: K, value: CoreEvent[K] | undefined): void => {
    if (value !== undefined) core[key] = value;
  };
  set("metadata", event.metadata);
  set("involvedObject", event.regarding);
  set("reason", event.reason);
  set("message", event.note);
  set("source", event.deprecatedSource);
  set("firstTimestamp", event.deprecatedFirstTimestamp);
  set("lastTimestamp", event.deprecatedLastTimestamp);
  set("count", event.deprecatedCount);
  set("type", event.type);
  set("eventTime", event.eventTime);
  set("series", event.series);
  set("action", event.action);
  set("related", event.related);
  set("reportingComponent", event.reportingController);
  set("reportingInstance", event.reportingInstance);
  return core;
}

/** core/v1 → events.k8s.io/v1, for serving one stored event through both APIs. */
export function coreEventToEventsV1(event: CoreEvent): EventsV1Event {
  const out: EventsV1Event = { apiVersion: "events.k8s.io/v1", kind: "Event" };
  const set = <K extends keyof EventsV1Event>(key: K, value: EventsV1Event[K] | undefined): void => {
    if (value !== undefined) out[key] = value;
  };
  set("metadata", event.metadata);
  set("eventTime", event.eventTime);
  set("series", event.series);
  set("reportingController", event.reportingComponent);
  set("reportingInstance", event.reportingInstance);
  set("action", event.action);
  set("reason", event.reason);
  set("regarding", event.involvedObject);
  set("related", event.related);
  set("note", event.message);
  set("type", event.type);
  set("deprecatedSource", event.source);
  set("deprecatedFirstTimestamp", event.firstTimestamp);
  set("deprecatedLastTimestamp", event.lastTimestamp);
  set("deprecatedCount", event.count);
  return out;
}

function normalize(object: EventsV1Event): void {
  const record = object as Record<string, unknown>;
  normalizeField(record, "eventTime", (v) => canonicalMicroTime(v, TARGET));
  normalizeField(record, "deprecatedFirstTimestamp", (v) => canonicalTime(v, TARGET));
  normalizeField(record, "deprecatedLastTimestamp", (v) => canonicalTime(v, TARGET));
  if (object.series === null) delete object.series;
  normalizeField(asRecord(object.series), "lastObservedTime", (v) => canonicalMicroTime(v, TARGET));
}

/** events.k8s.io/v1 field selectors, mapped onto the core ones as upstream's label conversion does. */
const SELECTORS: Record<string, string> = {
  reason: "reason",
  "regarding.kind": "involvedObject.kind",
  "regarding.namespace": "involvedObject.namespace",
  "regarding.name": "involvedObject.name",
  "regarding.uid": "involvedObject.uid",
  "regarding.apiVersion": "involvedObject.apiVersion",
  "regarding.resourceVersion": "involvedObject.resourceVersion",
  "regarding.fieldPath": "involvedObject.fieldPath",
  reportingController: "reportingComponent",
  type: "type",
};

const schema = kindSchema({
  group: "events.k8s.io",
  version: "v1",
  kind: "Event",
  description:
    "Event is a report of an event somewhere in the cluster. It generally denotes some state change in the system. Events have a limited retention time and triggers and messages may evolve with time; do not rely on them for automation.",
  required: ["eventTime"],
  properties: {
    action: stringSchema(
      "action is what action was taken/failed regarding to the regarding object. It is machine-readable. Required for new Events; at most 128 characters.",
    ),
    deprecatedCount: int32Schema("deprecatedCount is the deprecated field assuring backward compatibility with core.v1 Event type."),
    deprecatedFirstTimestamp: timeSchema(
      "deprecatedFirstTimestamp is the deprecated field assuring backward compatibility with core.v1 Event type.",
    ),
    deprecatedLastTimestamp: timeSchema(
      "deprecatedLastTimestamp is the deprecated field assuring backward compatibility with core.v1 Event type.",
    ),
    deprecatedSource: eventSourceSchema(
      "deprecatedSource is the deprecated field assuring backward compatibility with core.v1 Event type.",
    ),
    eventTime: microTimeSchema("eventTime is the time when this Event was first observed. It is required."),
    note: stringSchema(
      "note is a human-readable description of the status of this operation. Maximal length of the note is 1kB, but libraries should be prepared to handle values up to 64kB.",
    ),
    reason: stringSchema("reason is why the action was taken. It is human-readable. Required for new Events; at most 128 characters."),
    regarding: objectReferenceSchema(
      "regarding contains the object this Event is about. In most cases it's an Object reporting controller implements, e.g. ReplicaSetController implements ReplicaSets and this event is emitted because it acts on some changes in a ReplicaSet object.",
    ),
    related: objectReferenceSchema(
      "related is the optional secondary object for more complex actions, e.g. when the regarding object triggers a creation or deletion of related object.",
    ),
    reportingController: stringSchema(
      "reportingController is the name of the controller that emitted this Event, e.g. `kubernetes.io/kubelet`. Required for new Events.",
    ),
    reportingInstance: stringSchema(
      "reportingInstance is the ID of the controller instance, e.g. `kubelet-xyzf`. Required for new Events; at most 128 characters.",
    ),
    series: {
      type: "object",
      description: "series is data about the Event series this event represents or nil if it's a singleton Event.",
      required: ["count", "lastObservedTime"],
      properties: {
        count: int32Schema("count is the number of occurrences in this series up to the last heartbeat time."),
        lastObservedTime: microTimeSchema("lastObservedTime is the time when last Event from the series was seen before last heartbeat."),
      },
    },
    type: stringSchema(
      "type is the type of this event (Normal, Warning), new types could be added in the future. It is machine-readable. Required for new Events.",
    ),
  },
});

/** events.k8s.io/v1 Event (strict validation: eventTime, reporting fields, action, reason and type). */
export const eventsV1Resource = defineResource<EventsV1Event>({
  group: "events.k8s.io",
  version: "v1",
  kind: "Event",
  plural: "events",
  singular: "event",
  scope: "Namespaced",
  shortNames: ["ev"],
  schema,
  printerColumns: eventPrinterColumns<EventsV1Event>(eventsV1ToCore),
  fieldSelectors: Object.fromEntries(
    Object.entries(SELECTORS).map(([label, coreLabel]) => [
      label,
      (event: EventsV1Event) => eventSelectableFields(eventsV1ToCore(event))[coreLabel],
    ]),
  ),
  // Upstream keeps both event APIs in one store: these are core/v1 Events under /registry/events.
  storedAs: {
    group: "",
    plural: "events",
    toStorage: (object) => eventsV1ToCore(object),
    fromStorage: (object) => coreEventToEventsV1(object),
  },
  strategy: {
    allowCreateOnUpdate: true,
    prepareForCreate: normalize,
    prepareForUpdate: normalize,
    validate: (event) => validateEventCreate(eventsV1ToCore(event), "events.k8s.io/v1"),
    validateUpdate: (event, old) => validateEventUpdate(eventsV1ToCore(event), eventsV1ToCore(old), "events.k8s.io/v1"),
  },
});
