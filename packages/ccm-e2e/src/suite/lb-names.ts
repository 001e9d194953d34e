/** The Describe texts the ported tests sit under, as Ginkgo prints them. */
export const LOAD_BALANCERS = "[sig-network] LoadBalancers [Feature:LoadBalancer]";
export const ETP_LOCAL = "[sig-network] LoadBalancers ExternalTrafficPolicy: Local [Feature:LoadBalancer] [Slow]";
export const SERVICES = "[sig-network] Services";
