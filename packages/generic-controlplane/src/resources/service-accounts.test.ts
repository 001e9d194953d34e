import { describe, expect, it } from "vitest";
import { serviceAccountsResource } from "./service-accounts.js";
import { cells, createErrors, updateErrors } from "./test-helpers.js";

const sa = (fields: Record<string, unknown>) => ({
  apiVersion: "v1",
  kind: "ServiceAccount",
  metadata: { name: "builder", namespace: "default" },
  ...fields,
});

describe("ServiceAccount", () => {
  it.each([
    ["create", (o: Record<string, unknown>) => createErrors(serviceAccountsResource, o).object],
    ["update", (o: Record<string, unknown>) => updateErrors(serviceAccountsResource, o, sa({})).object],
  ])("keeps only the name of secret references on %s", (_name, run) => {
    const object = run(
      sa({ secrets: [{ name: "token", namespace: "other", kind: "Secret", uid: "u" }, {}], automountServiceAccountToken: false }),
    );
    expect(object["secrets"]).toEqual([{ name: "token" }, {}]);
    expect(object["automountServiceAccountToken"]).toBe(false);
  });

  it("merges secrets by name and keeps imagePullSecrets atomic in its schema", () => {
    const properties = serviceAccountsResource.schema?.properties ?? {};
    expect(properties["secrets"]).toMatchObject({
      "x-kubernetes-patch-merge-key": "name",
      "x-kubernetes-patch-strategy": "merge",
      "x-kubernetes-list-type": "map",
    });
    expect(properties["imagePullSecrets"]?.["x-kubernetes-list-type"]).toBe("atomic");
    expect(properties["imagePullSecrets"]?.["x-kubernetes-patch-strategy"]).toBeUndefined();
  });

  it.each([
    [{}, 0],
    [{ secrets: [{ name: "a" }, { name: "b" }] }, 2],
  ])("SECRETS column for %j is %i", (fields, count) => {
    expect(cells(serviceAccountsResource, sa(fields))["Secrets"]).toBe(count);
  });
});
