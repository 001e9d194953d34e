import { describe, expect, it } from "vitest";
import { UsageError } from "@kubekit/generic-controlplane";
import { DEFAULT_PORT, parseDuration, parseOptions } from "./options.js";

describe("parseOptions", () => {
  it("defaults to every controller under the kube-system/kube-controller-manager Lease with upstream timings", () => {
    expect(parseOptions([])).toEqual({
      kubeconfig: undefined,
      context: undefined,
      controllers: ["*"],
      leaderElect: true,
      leaseNamespace: "kube-system",
      leaseName: "kube-controller-manager",
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      bindAddress: "127.0.0.1",
      port: DEFAULT_PORT,
      help: false,
    });
  });

  it("reads kube-controller-manager style flags", () => {
    const options = parseOptions([
      "--kubeconfig",
      "/k",
      "--context",
      "c",
      "--controllers=*,-garbagecollector",
      "--leader-elect=false",
      "--leader-elect-lease-duration",
      "1m30s",
      "--port",
      "0",
    ]);
    expect(options).toMatchObject({
      kubeconfig: "/k",
      context: "c",
      controllers: ["*", "-garbagecollector"],
      leaderElect: false,
      leaseDurationMs: 90_000,
      port: 0,
    });
  });

  it("parses durations and refuses inconsistent election timings and unknown controllers", () => {
    expect([
      parseDuration("x", "500ms"),
      parseDuration("x", "15s"),
      parseDuration("x", "1m"),
      parseDuration("x", "1.5s"),
      parseDuration("x", "1h"),
    ]).toEqual([500, 15_000, 60_000, 1_500, 3_600_000]);
    expect(() => parseDuration("x", "15")).toThrow('--x must be a duration such as 15s, got "15": time: missing unit in duration "15"');
    expect(() => parseDuration("x", "-5s")).toThrow('--x must not be negative, got "-5s"');
    expect(() => parseOptions(["--leader-elect-lease-duration", "5s"])).toThrow(
      "--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline",
    );
    expect(() => parseOptions(["--controllers", "gc"])).toThrow(UsageError);
    expect(() => parseOptions(["--controllers", "gc"])).toThrow('--controllers: "gc" is not in the list of known controllers');
  });
});
