import { fail } from "../../framework/assert.js";
import type { TestContext } from "../../framework/context.js";
import { poll } from "../../framework/poll.js";
import { REPLICASETS } from "../../framework/resources.js";
import type { UpgradeTest } from "../../framework/upgrade-suite.js";

const RS_NAME = "rs";
const SCALE_NUM = 2;
/** `imageutils.Nginx`, the image upstream's test runs. */
const NGINX_IMAGE = "registry.k8s.io/e2e-test-images/nginx:1.14-4";

interface ReplicaSet {
  metadata: { uid?: string; [field: string]: unknown };
  spec: { replicas?: number; [field: string]: unknown };
  status?: { readyReplicas?: number };
  [field: string]: unknown;
}

/** `e2ereplicaset.WaitForReadyReplicaSet`: every replica of the ReplicaSet ready. */
async function waitForReadyReplicaSet(ctx: TestContext): Promise<void> {
  await poll(
    `replicaset ${ctx.namespace}/${RS_NAME} to have all of its replicas ready`,
    { timeoutMs: ctx.timeouts.podStart, signal: ctx.signal },
    async (note) => {
      const rs = await ctx.client.get<ReplicaSet>(REPLICASETS, ctx.namespace, RS_NAME);
      const want = rs.spec.replicas ?? 1;
      note(`${rs.status?.readyReplicas ?? 0} of ${want} ready`);
      return (rs.status?.readyReplicas ?? 0) === want ? true : undefined;
    },
  );
}

/**
 * `apps.ReplicaSetUpgradeTest` (test/e2e/upgrades/apps/replicasets.go): a ReplicaSet made before
 * the upgrade is the same object after it (same UID), has its replica ready again, and still
 * works: scaled to 2, both become ready.
 */
export function replicaSetUpgradeTest(): UpgradeTest {
  let uid: string | undefined;
  return {
    name: "[sig-apps] replicaset-upgrade",
    async setup(ctx) {
      ctx.step(`Creating replicaset ${RS_NAME} in namespace ${ctx.namespace}`);
      const labels = { test: "upgrade" };
      const rs = await ctx.client.create<ReplicaSet>(REPLICASETS, ctx.namespace, {
        apiVersion: "apps/v1",
        kind: "ReplicaSet",
        metadata: { name: RS_NAME, namespace: ctx.namespace },
        spec: {
          replicas: 1,
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: { containers: [{ name: "nginx", image: NGINX_IMAGE, securityContext: {} }] } },
        },
      });
      ctx.step(`Waiting for replicaset ${RS_NAME} to have all of its replicas ready`);
      await waitForReadyReplicaSet(ctx);
      uid = rs.metadata.uid;
    },
    async test(ctx, done) {
      ctx.step(`Waiting for upgrade to finish before checking replicaset ${RS_NAME}`);
      await done;
      ctx.step(`Checking UID to verify replicaset ${RS_NAME} survives upgrade`);
      const upgraded = await ctx.client.get<ReplicaSet>(REPLICASETS, ctx.namespace, RS_NAME);
      if (upgraded.metadata.uid !== uid) fail(`expected same replicaset UID: ${uid} got: ${upgraded.metadata.uid}`);
      ctx.step(`Waiting for replicaset ${RS_NAME} to have all of its replicas ready after upgrade`);
      await waitForReadyReplicaSet(ctx);
      ctx.step(`Scaling up replicaset ${RS_NAME} to ${SCALE_NUM}`);
      await ctx.client.patch(REPLICASETS, ctx.namespace, RS_NAME, { spec: { replicas: SCALE_NUM } });
      ctx.step(`Waiting for replicaset ${RS_NAME} to have all of its replicas ready after scaling`);
      await waitForReadyReplicaSet(ctx);
    },
  };
}
