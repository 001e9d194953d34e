#!/usr/bin/env node
// The fake cloud's command line, for the YAML driver's hooks:
// The admin URL comes from --url or $FAKE_CLOUD_URL.
//   fake-cloud-ctl.mjs [--url <admin url>] delete-instance|stop-instance|start-instance|reboot-instance <providerID>
//   fake-cloud-ctl.mjs --url <admin url> instance-exists <providerID>        prints true or false
//   fake-cloud-ctl.mjs --url <admin url> get-load-balancer <name>           prints JSON or null
//   fake-cloud-ctl.mjs --url <admin url> delete-load-balancer <name>
//   fake-cloud-ctl.mjs --url <admin url> upgrade-control-plane|upgrade-nodes <version>
//   fake-cloud-ctl.mjs --url <admin url> downgrade-nodes|downgrade-controlPlane <version>   (the downgrade hook's {{.part}})
const args = process.argv.slice(2);
const base = args[0] === "--url" ? args[1] : process.env.FAKE_CLOUD_URL;
const [command, argument] = args[0] === "--url" ? args.slice(2) : args;
if (!base || !command || !argument) {
  console.error("usage: fake-cloud-ctl.mjs [--url <admin url>] <command> <argument> (or set FAKE_CLOUD_URL)");
  process.exit(2);
}
const instance = (action) => [
  `${base}/instances/${action}?providerID=${encodeURIComponent(argument)}`,
  { method: action === "exists" ? "GET" : "POST" },
];
const upgrade = (part) => [`${base}/upgrade/${part}?version=${encodeURIComponent(argument)}`, { method: "POST" }];
const routes = {
  "delete-instance": () => instance("delete"),
  "stop-instance": () => instance("stop"),
  "start-instance": () => instance("start"),
  "reboot-instance": () => instance("reboot"),
  "instance-exists": () => instance("exists"),
  "get-load-balancer": () => [`${base}/loadbalancers/${encodeURIComponent(argument)}`, { method: "GET" }],
  "delete-load-balancer": () => [`${base}/loadbalancers/${encodeURIComponent(argument)}`, { method: "DELETE" }],
  "upgrade-control-plane": () => upgrade("control-plane"),
  "upgrade-nodes": () => upgrade("nodes"),
  "downgrade-controlPlane": () => upgrade("control-plane"),
  "downgrade-nodes": () => upgrade("nodes"),
};
const route = routes[command];
if (!route) {
  console.error(`unknown command ${command}; known: ${Object.keys(routes).join(", ")}`);
  process.exit(2);
}
const response = await fetch(...route());
const body = await response.json();
if (!response.ok) {
  console.error(`${command} ${argument}: ${response.status}: ${body}`);
  process.exit(1);
}
if (command === "instance-exists" || command === "get-load-balancer") console.log(JSON.stringify(body));
