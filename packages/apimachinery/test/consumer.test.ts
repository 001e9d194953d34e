import { join } from "node:path";
import { describeConsumer } from "../../../consumer-check.shared.js";

// Itself only: the rules need no dependency.
describeConsumer(join(import.meta.dirname, ".."), { budget: { packages: 1, mib: 1 } });
