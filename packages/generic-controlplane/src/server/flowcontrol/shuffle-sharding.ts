import { createHash } from "node:crypto";

/**
 * k8s.io/apiserver's shufflesharding.Dealer: deals a hand of `handSize` distinct queue indices out
 * of `deckSize` from a flow's hash, so two flows rarely share all their queues and one heavy flow
 * can fill only its own hand.
 */
export function dealHand(hash: number, deckSize: number, handSize: number): number[] {
  const hand: number[] = [];
  let rest = hash;
  for (let i = 0; i < handSize; i++) {
    const remaining = deckSize - i;
    let card = rest % remaining;
    rest = Math.floor(rest / remaining);
    // Skip the cards already dealt, keeping the hand distinct (the dealer's "deal without replacement").
    for (const dealt of [...hand].sort((a, b) => a - b)) if (card >= dealt) card++;
    hand.push(card);
  }
  return hand;
}

/** A 48-bit hash of a flow (FlowSchema name and distinguisher), enough entropy for any deck here. */
export function flowHash(flowSchema: string, distinguisher: string): number {
  const digest = createHash("sha256").update(flowSchema).update("\0").update(distinguisher).digest();
  return digest.readUIntBE(0, 6);
}
