import { join } from "node:path";
import { describeConsumer } from "../../../consumer-check.shared.js";

// Itself, yaml and @kubekit/apimachinery.
describeConsumer(join(import.meta.dirname, ".."), { budget: { packages: 3, mib: 2 } });
