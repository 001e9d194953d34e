// @peculiar/x509 resolves its ASN.1 codecs through tsyringe, which needs the Reflect metadata API
// loaded first; every use of the library in this package goes through this module.
import "reflect-metadata";
import * as x509 from "@peculiar/x509";

x509.cryptoProvider.set(globalThis.crypto);

export { x509 };
