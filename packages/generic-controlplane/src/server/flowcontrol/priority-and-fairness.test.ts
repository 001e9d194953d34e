import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { ANONYMOUS } from "../access-reviews.js";
import { parseRequestInfo } from "../request-info.js";
import { PriorityAndFairness } from "./priority-and-fairness.js";

const list = parseRequestInfo("GET", "/api/v1/namespaces/default/configmaps", new URLSearchParams());

describe("PriorityAndFairness", () => {
  it("keeps the mandatory exempt and catch-all configuration in force when the stored objects are gone", async () => {
    const apf = new PriorityAndFairness({ serverConcurrencyLimit: 10 });
    expect(apf.classify(ANONYMOUS, list, "GET", "/api/v1/namespaces/default/configmaps").priorityLevel.metadata.name).toBe(
      "global-default",
    );
    apf.configure([], []);
    const classified = apf.classify(ANONYMOUS, list, "GET", "/api/v1/namespaces/default/configmaps");
    expect([classified.flowSchema.metadata.name, classified.priorityLevel.metadata.name]).toEqual(["catch-all", "catch-all"]);
    const admission = await apf.admit({ name: "root", groups: ["system:masters"] }, list, "GET", "/api/v1/namespaces/default/configmaps");
    expect(admission.priorityLevel.metadata.name).toBe("exempt");
    admission.release();
  });

  it("sizes each limited level by its share of the server's seats, as upstream: ceil(seats × shares / Σ shares)", () => {
    const apf = new PriorityAndFairness({ serverConcurrencyLimit: 600 });
    // Σ shares of the default limited levels: 30 + 40 + 10 + 40 + 100 + 20 + 5 = 245.
    const nominal = (level: string) => apf.nominalSeats(level);
    expect(nominal("global-default")).toBe(Math.ceil((600 * 20) / 245));
    expect(nominal("workload-low")).toBe(Math.ceil((600 * 100) / 245));
    expect(nominal("catch-all")).toBe(Math.ceil((600 * 5) / 245));
    expect(nominal("exempt")).toBeUndefined();
  });

  it("counts every dispatched request, exempt ones too, in apiserver_flowcontrol_dispatched_requests_total, across scrapes and reconfiguration", async () => {
    const registry = new Registry();
    const apf = new PriorityAndFairness({ serverConcurrencyLimit: 10, registry });
    const root = { name: "root", groups: ["system:masters"] };
    const dispatch = async (user: typeof root, times: number) => {
      for (let i = 0; i < times; i++) (await apf.admit(user, list, "GET", "/api/v1/namespaces/default/configmaps")).release();
    };
    const dispatched = async () => {
      const text = await registry.metrics();
      return text.split("\n").filter((line) => line.startsWith("apiserver_flowcontrol_dispatched_requests_total{"));
    };
    await dispatch(ANONYMOUS, 3);
    await dispatch(root, 1);
    const first = await dispatched();
    expect(first).toEqual([
      'apiserver_flowcontrol_dispatched_requests_total{flow_schema="global-default",priority_level="global-default"} 3',
      'apiserver_flowcontrol_dispatched_requests_total{flow_schema="exempt",priority_level="exempt"} 1',
    ]);
    // A second scrape counts nothing twice; a new configuration keeps the series.
    expect(await dispatched()).toEqual(first);
    apf.configure([], []);
    await dispatch(ANONYMOUS, 2);
    expect(await dispatched()).toEqual([
      'apiserver_flowcontrol_dispatched_requests_total{flow_schema="global-default",priority_level="global-default"} 3',
      'apiserver_flowcontrol_dispatched_requests_total{flow_schema="exempt",priority_level="exempt"} 1',
      'apiserver_flowcontrol_dispatched_requests_total{flow_schema="catch-all",priority_level="catch-all"} 2',
    ]);
  });
});
