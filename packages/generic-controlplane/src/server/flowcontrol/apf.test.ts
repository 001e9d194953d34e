/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call -- tests read arbitrary JSON responses */
import { describe, expect, it } from "vitest";
import type { AdmissionPlugin } from "../../admission/types.js";
import { configMap, startTestPlane } from "../test-support.js";
import { defaultFlowSchemas, defaultPriorityLevels, type FlowSchema, type PriorityLevelConfiguration } from "./defaults.js";

const FC = "/apis/flowcontrol.apiserver.k8s.io/v1";
const ADMIN = { "X-Test-User": "admin", "X-Test-Groups": "system:masters" };
const SCHEMAS = defaultFlowSchemas();
const LEVELS = defaultPriorityLevels();

/** Test authentication: the user named in `X-Test-User` (groups in `X-Test-Groups`), else anonymous. */
const authenticate = (ctx: { req: { headers: Record<string, string | string[] | undefined> } }) => {
  const name = ctx.req.headers["x-test-user"];
  if (typeof name !== "string") return undefined;
  const groups = typeof ctx.req.headers["x-test-groups"] === "string" ? ctx.req.headers["x-test-groups"].split(",") : [];
  return { name, groups: [...groups, "system:authenticated"] };
};

function holdingAdmission() {
  const waiters: Array<() => void> = [];
  let entered = 0;
  let opened = false;
  /** Names of the objects whose create reached admission, in order: the order the server ran them. */
  const order: string[] = [];
  let onEnter = (): void => undefined;
  const plugin: AdmissionPlugin = {
    name: "Hold",
    async validate(attributes) {
      order.push(attributes.name);
      if (!attributes.name.startsWith("held-")) return;
      entered++;
      onEnter();
      if (!opened) await new Promise<void>((resolve) => waiters.push(resolve));
    },
  };
  return {
    plugin,
    order,
    get entered() {
      return entered;
    },
    /** Resolves once `count` held requests are inside admission. */
    until: (count: number) =>
      new Promise<void>((resolve) => {
        onEnter = () => entered >= count && resolve();
        onEnter();
      }),
    releaseOne: () => waiters.shift()?.(),
    releaseAll: () => waiters.splice(0).forEach((release) => release()),
    /** Lets every held and later request through. */
    open: () => {
      opened = true;
      waiters.splice(0).forEach((release) => release());
    },
  };
}

describe("API Priority and Fairness", () => {
  it("classifies requests by the upstream FlowSchemas and names them in the X-Kubernetes-PF-* headers", async () => {
    const t = await startTestPlane({ authenticate });
    const uids = new Map<string, string>();
    for (const plural of ["flowschemas", "prioritylevelconfigurations"]) {
      for (const item of (await t.call("GET", `${FC}/${plural}`, { headers: ADMIN })).json.items as FlowSchema[])
        uids.set(`${plural}/${item.metadata.name}`, item.metadata.uid);
    }
    const uidOf = (kind: "schema" | "level", name: string) =>
      uids.get(`${kind === "schema" ? "flowschemas" : "prioritylevelconfigurations"}/${name}`);
    try {
      const anonymous = await t.call("GET", "/api/v1/namespaces/default/configmaps");
      expect(anonymous.headers.get("x-kubernetes-pf-flowschema-uid")).toBe(uidOf("schema", "global-default"));
      expect(anonymous.headers.get("x-kubernetes-pf-prioritylevel-uid")).toBe(uidOf("level", "global-default"));
      const admin = await t.call("GET", "/api/v1/namespaces", { headers: { "X-Test-User": "admin", "X-Test-Groups": "system:masters" } });
      expect(admin.headers.get("x-kubernetes-pf-flowschema-uid")).toBe(uidOf("schema", "exempt"));
      expect(admin.headers.get("x-kubernetes-pf-prioritylevel-uid")).toBe(uidOf("level", "exempt"));
      const probe = await t.call("GET", "/readyz");
      expect(probe.headers.get("x-kubernetes-pf-flowschema-uid")).toBe(uidOf("schema", "probes"));
      const sa = await t.call("GET", "/api/v1/namespaces/default/configmaps", {
        headers: { "X-Test-User": "system:serviceaccount:default:app", "X-Test-Groups": "system:serviceaccounts" },
      });
      expect(sa.headers.get("x-kubernetes-pf-prioritylevel-uid")).toBe(uidOf("level", "workload-low"));
      const metrics = (await t.call("GET", "/metrics")).text;
      expect(metrics).toMatch(
        /apiserver_flowcontrol_dispatched_requests_total\{flow_schema="global-default",priority_level="global-default"\} [1-9]/,
      );
      expect(metrics).toContain('apiserver_flowcontrol_nominal_limit_seats{priority_level="workload-low"} 245');
    } finally {
      await t.close();
    }
  });

  it("does not let a heavy client starve a light one: the light client's request runs before the heavy backlog", async () => {
    const hold = holdingAdmission();
    // Two seats in all: global-default's nominal share is one seat.
    const t = await startTestPlane({ authenticate, admission: [hold.plugin], maxRequestsInflight: 1, maxMutatingRequestsInflight: 1 });
    const admin = { "X-Test-User": "admin", "X-Test-Groups": "system:masters" };
    const heavyCount = 30;
    try {
      const heavy = Array.from({ length: heavyCount }, (_, i) =>
        t.call("POST", "/api/v1/namespaces/default/configmaps", { body: configMap(`held-${i}`), headers: { "X-Test-User": "heavy" } }),
      );
      await hold.until(1);
      const inQueue = async () =>
        Number(
          /apiserver_flowcontrol_current_inqueue_requests\{flow_schema="global-default",priority_level="global-default"\} (\d+)/.exec(
            (await t.call("GET", "/metrics", { headers: admin })).text,
          )?.[1] ?? 0,
        );
      const deadline = Date.now() + 5000;
      while ((await inQueue()) < heavyCount - 1) if (Date.now() > deadline) throw new Error("the heavy backlog never queued");
      const metrics = (await t.call("GET", "/metrics", { headers: admin })).text;
      expect(metrics).toContain(
        'apiserver_flowcontrol_current_executing_requests{flow_schema="global-default",priority_level="global-default"} 1',
      );
      expect(metrics).toContain(
        'apiserver_flowcontrol_current_executing_seats{flow_schema="global-default",priority_level="global-default"} 1',
      );
      // Only the admitted write is in flight; the queued ones have not reached the in-flight count.
      expect(metrics).toContain('apiserver_current_inflight_requests{request_kind="mutating"} 1');
      // Now the light client asks, behind 29 queued heavy requests.
      const light = t.call("POST", "/api/v1/namespaces/default/configmaps", {
        body: configMap("light"),
        headers: { "X-Test-User": "light" },
      });
      while ((await inQueue()) < heavyCount) if (Date.now() > deadline) throw new Error("the light request never queued");
      // Finish heavy requests one at a time until the server has run the light one.
      let finished = 0;
      while (!hold.order.includes("light") && finished < heavyCount) {
        hold.releaseOne();
        finished++;
        await hold.until(finished + 1);
      }
      expect((await light).status).toBe(201);
      // Fair queuing: the light flow waits for at most one request from each queue of the heavy
      // flow's hand (6), not for the whole backlog of 29.
      const ran = hold.order.filter((name) => name === "light" || name.startsWith("held-"));
      expect(ran.indexOf("light")).toBeGreaterThan(0);
      expect(ran.indexOf("light")).toBeLessThanOrEqual(7);
      hold.open();
      for (const response of await Promise.all(heavy)) expect(response.status).toBe(201);
      const after = (await t.call("GET", "/metrics", { headers: admin })).text;
      expect(after).toContain(
        'apiserver_flowcontrol_current_executing_requests{flow_schema="global-default",priority_level="global-default"} 0',
      );
      expect(after).toContain(
        'apiserver_flowcontrol_current_executing_seats{flow_schema="global-default",priority_level="global-default"} 0',
      );
      expect(after).toContain('apiserver_current_inflight_requests{request_kind="mutating"} 0');
    } finally {
      hold.open();
      await t.close();
    }
  });

  it("answers 429 with Retry-After and the flow headers when the level's queues are full, and counts the rejection", async () => {
    const hold = holdingAdmission();
    const level: PriorityLevelConfiguration = {
      apiVersion: "flowcontrol.apiserver.k8s.io/v1",
      kind: "PriorityLevelConfiguration",
      metadata: { name: "tiny", uid: "00000000-0000-4000-a000-000000000001", annotations: {} },
      spec: {
        type: "Limited",
        limited: {
          nominalConcurrencyShares: 1,
          lendablePercent: 0,
          limitResponse: { type: "Queue", queuing: { queues: 1, handSize: 1, queueLengthLimit: 1 } },
        },
      },
    };
    const everything: FlowSchema = {
      apiVersion: "flowcontrol.apiserver.k8s.io/v1",
      kind: "FlowSchema",
      metadata: { name: "everything", uid: "00000000-0000-4000-a000-000000000002", annotations: {} },
      spec: {
        priorityLevelConfiguration: { name: "tiny" },
        matchingPrecedence: 100,
        distinguisherMethod: { type: "ByUser" },
        rules: [
          {
            subjects: [{ kind: "Group", group: { name: "system:unauthenticated" } }],
            resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"], clusterScope: true, namespaces: ["*"] }],
          },
        ],
      },
    };
    const exempt = SCHEMAS.filter((s) => s.metadata.name === "exempt" || s.metadata.name === "probes");
    const t = await startTestPlane({
      authenticate,
      admission: [hold.plugin],
      flowSchemas: [...exempt, everything],
      priorityLevels: [LEVELS.find((l) => l.metadata.name === "exempt")!, level],
      maxRequestsInflight: 1,
      maxMutatingRequestsInflight: 0,
    });
    try {
      const first = t.call("POST", "/api/v1/namespaces/default/configmaps", { body: configMap("held-1") });
      await hold.until(1);
      const second = t.call("POST", "/api/v1/namespaces/default/configmaps", { body: configMap("held-2") });
      // The queue (length 1) fills with the second; the third is turned away.
      const admin = { "X-Test-User": "admin", "X-Test-Groups": "system:masters" };
      const deadline = Date.now() + 5000;
      while (
        !/apiserver_flowcontrol_current_inqueue_requests\{flow_schema="everything",priority_level="tiny"\} 1/.test(
          (await t.call("GET", "/metrics", { headers: admin })).text,
        )
      ) {
        if (Date.now() > deadline) throw new Error("the second request never queued");
      }
      const rejected = await t.call("GET", "/api/v1/namespaces/default/configmaps");
      expect(rejected.status).toBe(429);
      expect(rejected.headers.get("retry-after")).toBe("1");
      const storedUid = async (path: string) => (await t.call("GET", `${FC}/${path}`, { headers: admin })).json.metadata.uid as string;
      expect(rejected.headers.get("x-kubernetes-pf-flowschema-uid")).toBe(await storedUid("flowschemas/everything"));
      expect(rejected.headers.get("x-kubernetes-pf-prioritylevel-uid")).toBe(await storedUid("prioritylevelconfigurations/tiny"));
      expect(rejected.json).toMatchObject({ kind: "Status", reason: "TooManyRequests", code: 429, details: { retryAfterSeconds: 1 } });
      const metrics = (await t.call("GET", "/metrics", { headers: admin })).text;
      expect(metrics).toMatch(
        /apiserver_flowcontrol_rejected_requests_total\{flow_schema="everything",priority_level="tiny",reason="queue-full"\} [1-9]/,
      );
      hold.open();
      expect((await first).status).toBe(201);
      expect((await second).status).toBe(201);

      // A watch takes the only seat while it starts, then frees it: later requests are served.
      const watch = await fetch(`${t.url}/api/v1/namespaces/default/configmaps?watch=1`);
      expect(watch.status).toBe(200);
      expect(watch.headers.get("x-kubernetes-pf-prioritylevel-uid")).toBe(await storedUid("prioritylevelconfigurations/tiny"));
      expect((await t.call("GET", "/api/v1/namespaces/default/configmaps")).status).toBe(200);
      await watch.body?.cancel();
    } finally {
      hold.open();
      await t.close();
    }
  });

  it("serves FlowSchemas and PriorityLevelConfigurations, bootstrapped with upstream's, and applies changes to them", async () => {
    const t = await startTestPlane({ authenticate });
    try {
      const schemas = (await t.call("GET", `${FC}/flowschemas`)).json.items.map((o: FlowSchema) => o.metadata.name);
      expect(schemas).toEqual(expect.arrayContaining(SCHEMAS.map((o) => o.metadata.name)));
      const levels = (await t.call("GET", `${FC}/prioritylevelconfigurations`)).json.items.map(
        (o: PriorityLevelConfiguration) => o.metadata.name,
      );
      expect(levels).toEqual(expect.arrayContaining(["exempt", "system", "workload-low", "global-default", "catch-all"]));
      const table = await t.call("GET", `${FC}/prioritylevelconfigurations/global-default`, {
        headers: { Accept: "application/json;as=Table;v=v1;g=meta.k8s.io" },
      });
      expect(table.json.rows[0].cells).toEqual(["global-default", "Limited", "20", "128", "6", "50", expect.any(String)]);

      const exemptUid = (await t.call("GET", `${FC}/prioritylevelconfigurations/exempt`)).json.metadata.uid as string;
      const vip = { "X-Test-User": "vip" };
      expect((await t.call("GET", "/api/v1/namespaces", { headers: vip })).headers.get("x-kubernetes-pf-prioritylevel-uid")).not.toBe(
        exemptUid,
      );
      const created = await t.call("POST", `${FC}/flowschemas`, {
        body: {
          apiVersion: "flowcontrol.apiserver.k8s.io/v1",
          kind: "FlowSchema",
          metadata: { name: "vip" },
          spec: {
            priorityLevelConfiguration: { name: "exempt" },
            matchingPrecedence: 50,
            rules: [
              {
                subjects: [{ kind: "User", user: { name: "vip" } }],
                resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"], clusterScope: true, namespaces: ["*"] }],
              },
            ],
          },
        },
      });
      expect(created.status).toBe(201);
      const deadline = Date.now() + 5000;
      while ((await t.call("GET", "/api/v1/namespaces", { headers: vip })).headers.get("x-kubernetes-pf-prioritylevel-uid") !== exemptUid) {
        if (Date.now() > deadline) throw new Error("the new FlowSchema was never applied");
      }
      expect((await t.call("GET", "/api/v1/namespaces", { headers: vip })).headers.get("x-kubernetes-pf-flowschema-uid")).toBe(
        created.json.metadata.uid,
      );

      // A schema naming a level that does not exist is marked Dangling (and skipped).
      await t.call("POST", `${FC}/flowschemas`, {
        body: {
          apiVersion: "flowcontrol.apiserver.k8s.io/v1",
          kind: "FlowSchema",
          metadata: { name: "orphan" },
          spec: {
            priorityLevelConfiguration: { name: "nowhere" },
            matchingPrecedence: 60,
            rules: [{ subjects: [{ kind: "User", user: { name: "*" } }], nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }] }],
          },
        },
      });
      let dangling;
      while (!(dangling = (await t.call("GET", `${FC}/flowschemas/orphan`)).json.status?.conditions?.[0]))
        if (Date.now() > deadline) throw new Error("never marked");
      expect(dangling).toMatchObject({
        type: "Dangling",
        status: "True",
        reason: "NotFound",
        message: 'This FlowSchema references the PriorityLevelConfiguration object named "nowhere" but there is no such object',
      });
      expect((await t.call("GET", `${FC}/flowschemas/vip`)).json.status.conditions[0]).toMatchObject({
        type: "Dangling",
        status: "False",
        reason: "Found",
      });
      // The dangling schema would match /version first (precedence 60); it is skipped instead.
      const globalDefaultUid = (await t.call("GET", `${FC}/prioritylevelconfigurations/global-default`)).json.metadata.uid as string;
      expect((await t.call("GET", "/version")).headers.get("x-kubernetes-pf-prioritylevel-uid")).toBe(globalDefaultUid);

      const invalid = await t.call("POST", `${FC}/prioritylevelconfigurations`, {
        body: {
          apiVersion: "flowcontrol.apiserver.k8s.io/v1",
          kind: "PriorityLevelConfiguration",
          metadata: { name: "bad" },
          spec: {
            type: "Limited",
            limited: { limitResponse: { type: "Queue", queuing: { queues: 2, handSize: 4, queueLengthLimit: 10 } } },
          },
        },
      });
      expect(invalid.status).toBe(422);
      expect(invalid.json.message).toContain(
        "spec.limited.limitResponse.queuing.handSize: Invalid value: 4: should not be greater than queues (2)",
      );
    } finally {
      await t.close();
    }
  });

  it("charges a LIST over many objects several seats (one per 100, up to 10), as upstream's work estimator", async () => {
    const t = await startTestPlane({ authenticate });
    try {
      const configmaps = t.plane.store("", "configmaps")!;
      for (let i = 0; i < 250; i++) await configmaps.create("default", configMap(`many-${i}`));
      expect((await t.call("GET", "/api/v1/namespaces/default/configmaps")).json.items).toHaveLength(250);
      const metrics = (await t.call("GET", "/metrics", { headers: ADMIN })).text;
      expect(metrics).toContain(
        'apiserver_flowcontrol_work_estimated_seats_sum{flow_schema="global-default",priority_level="global-default"} 5',
      );
      expect(metrics).toContain(
        'apiserver_flowcontrol_work_estimated_seats_count{flow_schema="global-default",priority_level="global-default"} 1',
      );
    } finally {
      await t.close();
    }
  });
});
