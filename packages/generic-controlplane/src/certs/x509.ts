// @peculiar/x509 resolves its ASN.1 codecs through tsyringe, which needs the Reflect metadata API
// loaded first; every use of the library in this package goes through this module.
import "reflect-metadata";
import { webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

export { x509 };
