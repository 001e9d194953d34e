/**
 * Ports the upgrade tests of test/e2e/cloud/gcp/cluster_upgrade.go, with their mechanics
 * (test/e2e/cloud/gcp/common/upgrade_mechanics.go: the upgrade, then `/version` and every node's
 * kubelet checked against the target) and upstream's `--upgrade-target` (upgrade_context.go). The
 * upgrade itself is the driver's (`upgradeControlPlane`, `upgradeNodes`, `downgrade`) where upstream
 * runs GCE's cluster/gce/upgrade.sh.
 *
 * Of the upgrade tests the suite runs alongside (`upgradeTests`), ported:
 * - `network.ServiceUpgradeTest` (test/e2e/upgrades/network/services.go): a LoadBalancer service
 *   keeps answering through the upgrade and after it, and keeps its cleanup finalizer;
 * - `apps.ReplicaSetUpgradeTest` (test/e2e/upgrades/apps/replicasets.go): a ReplicaSet survives with
 *   its pods ready and can still scale;
 * - `apps.DaemonSetUpgradeTest` (test/e2e/upgrades/apps/daemonsets.go): a pod on every node before and
 *   after, the DaemonSet's status agreeing.
 * Not ported: the Deployment, Job, StatefulSet and HPA tests check controllers of the control plane
 * rather than the nodes and the cloud provider; ConfigMap, Secret and AppArmor read files and
 * profiles inside running containers, which a check through the API alone cannot see; the
 * PersistentVolume and VolumeMode tests need the cloud's storage driver, outside a CCM. The etcd,
 * GPU, stateful-application and kube-proxy migration upgrades of the same file are not in the
 * proposal.
 *
 * All upgrade tests share the test's namespace (upstream gives each its own framework).
 */
import { skip } from "../framework/assert.js";
import type { TestContext } from "../framework/context.js";
import type { SuiteTest } from "../framework/registry.js";
import { clusterDowngradeFunc, clusterUpgradeFunc, controlPlaneUpgradeFunc } from "../framework/upgrade-mechanics.js";
import { runUpgradeSuite, type UpgradeTest } from "../framework/upgrade-suite.js";
import { daemonSetUpgradeTest } from "./upgrades/daemonset-upgrade.js";
import { replicaSetUpgradeTest } from "./upgrades/replicaset-upgrade.js";
import { serviceUpgradeTest } from "./upgrades/service-upgrade.js";

const UPSTREAM = "test/e2e/cloud/gcp/cluster_upgrade.go";

/** `upgradeTests`, the ported ones, made afresh for each run. */
const upgradeTests = (): UpgradeTest[] => [daemonSetUpgradeTest(), replicaSetUpgradeTest(), serviceUpgradeTest()];

/** `GetUpgradeContext`'s `Versions[1]`: the run's target; without one there is nothing to upgrade to. */
function upgradeTarget(ctx: TestContext): string {
  if (ctx.upgradeTarget === undefined)
    skip("no upgrade target: give the run --upgrade-target <version> (upstream's flag), the version to move the cluster to");
  return ctx.upgradeTarget;
}

const masterUpgrade: SuiteTest = {
  name: "[sig-cloud-provider-gcp] Upgrade [Feature:Upgrade] master upgrade should maintain a functioning cluster [Feature:MasterUpgrade]",
  upstream: UPSTREAM,
  requires: { capabilities: ["controlPlaneUpgrade"], hooks: ["upgradeControlPlane"] },
  async run(ctx) {
    const target = upgradeTarget(ctx);
    await runUpgradeSuite(ctx, upgradeTests(), "MasterUpgrade", controlPlaneUpgradeFunc(ctx, target));
  },
};

const clusterUpgrade: SuiteTest = {
  name: "[sig-cloud-provider-gcp] Upgrade [Feature:Upgrade] cluster upgrade should maintain a functioning cluster [Feature:ClusterUpgrade]",
  upstream: UPSTREAM,
  requires: { capabilities: ["controlPlaneUpgrade", "nodeUpgrade"], hooks: ["upgradeControlPlane", "upgradeNodes"] },
  async run(ctx) {
    const target = upgradeTarget(ctx);
    await runUpgradeSuite(ctx, upgradeTests(), "ClusterUpgrade", clusterUpgradeFunc(ctx, target));
  },
};

const clusterDowngrade: SuiteTest = {
  name: "[sig-cloud-provider-gcp] Downgrade [Feature:Downgrade] cluster downgrade should maintain a functioning cluster [Feature:ClusterDowngrade]",
  upstream: UPSTREAM,
  requires: { capabilities: ["downgrade"], hooks: ["downgrade"] },
  async run(ctx) {
    const target = upgradeTarget(ctx);
    await runUpgradeSuite(ctx, upgradeTests(), "ClusterUpgrade", clusterDowngradeFunc(ctx, target));
  },
};

export const upgradeSuiteTests: SuiteTest[] = [masterUpgrade, clusterUpgrade, clusterDowngrade];
