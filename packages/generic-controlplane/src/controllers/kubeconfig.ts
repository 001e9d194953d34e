// Reading a kubeconfig is @kubekit/client's; the controllers import it through here.
export { configFromKubeconfig, loadKubeconfig, type ClientConfig } from "@kubekit/client";
