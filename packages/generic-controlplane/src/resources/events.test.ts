import { describe, expect, it } from "vitest";
import { eventsResource } from "./events.js";
import { coreEventToEventsV1, eventsV1Resource, eventsV1ToCore, type EventsV1Event } from "./events-v1.js";
import { eventCells } from "./event-rules.js";
import { createErrors, updateErrors } from "./test-helpers.js";

const coreEvent = (fields: Record<string, unknown>) => ({
  apiVersion: "v1",
  kind: "Event",
  metadata: { name: "pod-a.17a", namespace: "default" },
  involvedObject: { kind: "Pod", name: "pod-a", namespace: "default" },
  reason: "Started",
  message: "started",
  type: "Normal",
  ...fields,
});

const newEvent = (fields: Record<string, unknown>): EventsV1Event => ({
  apiVersion: "events.k8s.io/v1",
  kind: "Event",
  metadata: { name: "e1", namespace: "default" },
  eventTime: "2024-01-01T00:00:00.000000Z",
  reportingController: "example.com/controller",
  reportingInstance: "controller-0",
  action: "Sync",
  reason: "Synced",
  type: "Normal",
  regarding: { kind: "ConfigMap", name: "c", namespace: "default" },
  note: "synced",
  ...fields,
});

describe("core/v1 Event (legacy validation)", () => {
  it.each([
    ["a kubelet-style event", {}, []],
    ["cluster-scoped object recorded in default", { involvedObject: { kind: "Node", name: "n1" } }, []],
    [
      "namespace mismatch",
      { involvedObject: { kind: "Pod", name: "p", namespace: "other" } },
      [`involvedObject.namespace: Invalid value: "other": does not match event.namespace`],
    ],
    ["any type is accepted", { type: "Custom" }, []],
    [
      "new-style event through the old API names reportingComponent",
      { eventTime: "2024-01-01T00:00:00.000000Z", reason: "", action: "x", reportingInstance: "i" },
      [
        "reportingComponent: Required value",
        `reportingComponent: Invalid value: "": name part must be non-empty`,
        `reportingComponent: Invalid value: "": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
        "reason: Required value",
      ],
    ],
  ])("%s", (_name, fields, expected) => {
    expect(createErrors(eventsResource, coreEvent(fields)).errors).toEqual(expected);
  });

  it("canonicalises its times", () => {
    const { object } = createErrors(
      eventsResource,
      coreEvent({ firstTimestamp: "2024-01-01T00:00:00.5Z", lastTimestamp: null, eventTime: null }),
    );
    expect(object["firstTimestamp"]).toBe("2024-01-01T00:00:00Z");
    expect(object).not.toHaveProperty("lastTimestamp");
    expect(object).not.toHaveProperty("eventTime");
  });

  it("rejects a fractional count like Go's decoder", () => {
    expect(() => createErrors(eventsResource, coreEvent({ count: 1.5 }))).toThrow(
      'Event in version "v1" cannot be handled as a Event: json: cannot unmarshal number 1.5 into Go struct field Event.count of type int32',
    );
  });

  it("allows core/v1 updates to change anything", () => {
    const old = coreEvent({ count: 1 });
    expect(updateErrors(eventsResource, coreEvent({ count: 2, message: "again" }), old).errors).toEqual([]);
  });

  it.each([
    ["involvedObject.kind", "Pod"],
    ["involvedObject.name", "pod-a"],
    ["involvedObject.namespace", "default"],
    ["involvedObject.uid", ""],
    ["reason", "Started"],
    ["type", "Normal"],
    ["source", "kubelet"],
    ["reportingComponent", ""],
  ])("field selector %s", (label, value) => {
    expect(eventsResource.fieldSelectors?.[label]?.(coreEvent({ source: { component: "kubelet", host: "n1" } }))).toBe(value);
  });
});

describe("events.k8s.io/v1 Event (strict validation)", () => {
  it.each([
    ["a complete event", {}, []],
    ["missing eventTime", { eventTime: undefined }, ["eventTime: Required value"]],
    [
      "cluster-scoped regarding outside default and kube-system",
      { metadata: { name: "e1", namespace: "team" }, regarding: { kind: "Node", name: "n1" } },
      [`involvedObject.namespace: Invalid value: "": does not match event.namespace`],
    ],
    ["bad type", { type: "Info" }, [`type: Invalid value: "": has invalid value: Info`]],
    [
      "deprecated fields set",
      { deprecatedCount: 3, deprecatedSource: { component: "x" } },
      [`count: Invalid value: "": needs to be unset`, `source: Invalid value: "": needs to be unset`],
    ],
    [
      "short series",
      { series: { count: 1 } },
      [`series.count: Invalid value: "": should be at least 2`, "series.lastObservedTime: Required value"],
    ],
    ["long action", { action: "a".repeat(129) }, [`action: Invalid value: "": can have at most 128 characters`]],
    [
      "missing reporting fields",
      { reportingController: undefined, reportingInstance: undefined },
      expect.arrayContaining(["reportingController: Required value", "reportingInstance: Required value"]),
    ],
  ])("%s", (_name, fields, expected) => {
    expect(createErrors(eventsV1Resource, newEvent(fields)).errors).toEqual(expected);
  });

  it("allows only series and metadata to change", () => {
    const old = newEvent({});
    expect(
      updateErrors(eventsV1Resource, newEvent({ series: { count: 2, lastObservedTime: "2024-01-01T00:01:00.000000Z" } }), old).errors,
    ).toEqual([]);
    expect(updateErrors(eventsV1Resource, newEvent({ note: "changed" }), old).errors).toEqual([
      `message: Invalid value: "changed": field is immutable`,
    ]);
  });

  it("requires MicroTime precision for eventTime", () => {
    expect(() => createErrors(eventsV1Resource, newEvent({ eventTime: "2024-01-01T00:00:00Z" }))).toThrow(/cannot be handled as a Event/);
  });

  it("converts to and from the core shape without loss", () => {
    const event = newEvent({ deprecatedCount: 2, related: { kind: "Pod", name: "p" } });
    expect(coreEventToEventsV1(eventsV1ToCore(event))).toEqual(event);
    expect(eventsV1ToCore(event)).toMatchObject({
      involvedObject: event.regarding,
      message: "synced",
      reportingComponent: "example.com/controller",
      count: 2,
    });
  });

  it("maps its field selectors onto the core ones", () => {
    const selectors = eventsV1Resource.fieldSelectors ?? {};
    expect(Object.keys(selectors).sort()).toEqual(
      [
        "reason",
        "regarding.apiVersion",
        "regarding.fieldPath",
        "regarding.kind",
        "regarding.name",
        "regarding.namespace",
        "regarding.resourceVersion",
        "regarding.uid",
        "reportingController",
        "type",
      ].sort(),
    );
    expect(selectors["regarding.name"]?.(newEvent({}))).toBe("c");
    expect(selectors["reportingController"]?.(newEvent({}))).toBe("example.com/controller");
  });
});

describe("event table", () => {
  const now = Date.parse("2024-01-01T01:00:00Z");
  it("prints LAST SEEN, TYPE, REASON, OBJECT, SUBOBJECT, SOURCE, MESSAGE, FIRST SEEN, COUNT, NAME like upstream", () => {
    const legacy = coreEvent({
      firstTimestamp: "2024-01-01T00:00:00Z",
      lastTimestamp: "2024-01-01T00:55:00Z",
      count: 4,
      source: { component: "kubelet", host: "node-1" },
      message: " pulled \n",
    });
    expect(eventCells(legacy, now)).toEqual([
      "5m",
      "Normal",
      "Started",
      "pod/pod-a",
      "",
      "kubelet, node-1",
      "pulled",
      "60m",
      4,
      "pod-a.17a",
    ]);
    const modern = eventsV1ToCore(newEvent({ eventTime: "2024-01-01T00:59:30.000000Z" }));
    expect(eventCells(modern, now)).toEqual([
      "30s",
      "Normal",
      "Synced",
      "configmap/c",
      "",
      "example.com/controller, controller-0",
      "synced",
      "30s",
      1,
      "e1",
    ]);
  });

  it("declares the upstream columns with NAME marked as the name column", () => {
    const columns = eventsResource.printerColumns ?? [];
    expect(columns.map((c) => [c.name, c.priority ?? 0])).toEqual([
      ["Last Seen", 0],
      ["Type", 0],
      ["Reason", 0],
      ["Object", 0],
      ["Subobject", 1],
      ["Source", 1],
      ["Message", 0],
      ["First Seen", 1],
      ["Count", 1],
      ["Name", 1],
    ]);
    expect(columns.at(-1)?.format).toBe("name");
  });
});

describe("one store for both event APIs", () => {
  it("keeps events.k8s.io/v1 events as core/v1 Events under the core events keys", () => {
    const storedAs = eventsV1Resource.storedAs;
    expect(storedAs).toMatchObject({ group: "", plural: "events" });
    const event = newEvent({});
    const stored = storedAs?.toStorage(event);
    expect(stored).toMatchObject({ apiVersion: "v1", kind: "Event", message: "synced", involvedObject: event.regarding });
    // What the core API then validates, prints and selects on is the same object.
    expect(createErrors(eventsResource, stored ?? {}).errors).toEqual([]);
    expect(storedAs?.fromStorage(stored ?? {})).toEqual(event);
  });
});
