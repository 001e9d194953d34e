import { describe, expect, it } from "vitest";
import { leasesResource } from "./leases.js";
import { cells, createErrors, updateErrors } from "./test-helpers.js";

const lease = (spec: Record<string, unknown>) => ({
  apiVersion: "coordination.k8s.io/v1",
  kind: "Lease",
  metadata: { name: "leader", namespace: "kube-system" },
  spec,
});

describe("Lease", () => {
  it.each([
    ["a held lease", { holderIdentity: "a", leaseDurationSeconds: 15, leaseTransitions: 0 }, []],
    ["zero duration", { leaseDurationSeconds: 0 }, ["spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0"]],
    ["negative transitions", { leaseTransitions: -1 }, ["spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0"]],
  ])("validates %s", (_name, spec, expected) => {
    expect(createErrors(leasesResource, lease(spec)).errors).toEqual(expected);
  });

  it.each([
    ["2024-01-02T03:04:05.123456Z", "2024-01-02T03:04:05.123456Z"],
    ["2024-01-02T05:04:05.000001+02:00", "2024-01-02T03:04:05.000001Z"],
  ])("keeps MicroTime %s as %s", (input, canonical) => {
    const { object } = createErrors(leasesResource, lease({ acquireTime: input, renewTime: input }));
    expect(object["spec"]).toEqual({ acquireTime: canonical, renewTime: canonical });
  });

  it.each([
    ["2024-01-02T03:04:05Z", 'cannot parse "Z" as ".000000"'],
    ["2024-01-02T03:04:05.123Z", 'cannot parse ".123Z" as ".000000"'],
    ["2024-01-02T03:04:05.123456789Z", 'cannot parse "789Z" as "Z07:00"'],
    ["yesterday", 'cannot parse "yesterday" as "2006"'],
    ["2024-13-02T03:04:05.000000Z", "month out of range"],
  ])("rejects renewTime %s as a 400", (input, detail) => {
    expect(() => createErrors(leasesResource, lease({ renewTime: input }))).toThrow(
      expect.objectContaining({ code: "BadRequest", message: expect.stringContaining(detail) as string }),
    );
    expect(() => createErrors(leasesResource, lease({ renewTime: input }))).toThrow(
      /^Lease in version "v1" cannot be handled as a Lease: parsing time/,
    );
  });

  it.each([
    [
      { leaseDurationSeconds: 1.5 },
      "json: cannot unmarshal number 1.5 into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32",
    ],
    [
      { leaseDurationSeconds: "15" },
      "json: cannot unmarshal string into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32",
    ],
    [
      { leaseTransitions: 2 ** 31 },
      "json: cannot unmarshal number 2147483648 into Go struct field LeaseSpec.spec.leaseTransitions of type int32",
    ],
    [{ holderIdentity: 7 }, "json: cannot unmarshal number into Go struct field LeaseSpec.spec.holderIdentity of type string"],
  ])("rejects mistyped spec %j like Go's decoder", (spec, reason) => {
    expect(() => createErrors(leasesResource, lease(spec))).toThrow(
      expect.objectContaining({ code: "BadRequest", message: `Lease in version "v1" cannot be handled as a Lease: ${reason}` }),
    );
  });

  it("treats null times as unset", () => {
    expect(createErrors(leasesResource, lease({ holderIdentity: "a", renewTime: null })).object["spec"]).toEqual({ holderIdentity: "a" });
  });

  it("drops the alpha coordinated-election fields unless already in use", () => {
    expect(createErrors(leasesResource, lease({ strategy: "OldestEmulationVersion", preferredHolder: "b" })).object["spec"]).toEqual({});
    const old = lease({ strategy: "OldestEmulationVersion" });
    const { object, errors } = updateErrors(leasesResource, lease({ strategy: "Nope", preferredHolder: "b" }), old);
    expect(object["spec"]).toEqual({ strategy: "Nope" });
    expect(errors).toEqual([`spec.strategy: Unsupported value: "Nope": supported values: "OldestEmulationVersion"`]);
  });

  it("shows HOLDER", () => {
    expect(cells(leasesResource, lease({ holderIdentity: "node-1" }))["Holder"]).toBe("node-1");
    expect(cells(leasesResource, lease({}))["Holder"]).toBe("");
  });
});
