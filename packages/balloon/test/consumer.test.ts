import { join } from "node:path";
import { describeConsumer } from "../../../consumer-check.shared.js";

// Itself, @kubekit/client (with @kubekit/apimachinery), commander and yaml: no @kubernetes/client-node (85 MiB).
describeConsumer(join(import.meta.dirname, ".."), { budget: { packages: 5, mib: 3 } });
