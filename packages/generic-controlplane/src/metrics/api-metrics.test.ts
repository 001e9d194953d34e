import { describe, expect, it } from "vitest";
import { ApiMetrics, type RequestLabels } from "./api-metrics.js";

const create: RequestLabels = {
  verb: "POST",
  dry_run: "",
  group: "",
  version: "v1",
  resource: "configmaps",
  subresource: "",
  scope: "namespace",
  component: "apiserver",
};

const series = (text: string, name: string) =>
  text.split("\n").filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));

describe("ApiMetrics", () => {
  it("counts every observed request in apiserver_request_total and its duration, whenever and however often it is read", async () => {
    const metrics = new ApiMetrics({ processMetrics: false });
    for (let i = 0; i < 3; i++) metrics.observe(create, 201, 0.001);
    metrics.observe(create, 409, 0.002);
    const total = (code: number, count: number) =>
      `apiserver_request_total{verb="POST",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver",code="${code}"} ${count}`;
    const first = (await metrics.render()).body;
    expect(series(first, "apiserver_request_total")).toEqual([total(201, 3), total(409, 1)]);
    expect(series(first, "apiserver_request_duration_seconds_count")).toEqual([
      'apiserver_request_duration_seconds_count{verb="POST",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver"} 4',
    ]);
    // A second read counts nothing twice; later requests add to the same series.
    expect(series((await metrics.render()).body, "apiserver_request_total")).toEqual([total(201, 3), total(409, 1)]);
    metrics.observe(create, 201, 0.001);
    expect(series((await metrics.render()).body, "apiserver_request_total")).toEqual([total(201, 4), total(409, 1)]);
    expect((await metrics.requests.get()).values.map((v) => v.value)).toEqual([4, 1]);
  });
});
