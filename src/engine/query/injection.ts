/**
 * A small screen for indirect prompt injection in retrieved text (§15.2): phrases whose only
 * common use is to address a language model that reads the passage ("ignore all previous
 * instructions", "reveal your system prompt", chat-template role markers). It is advisory — a
 * match sets `trust.injectionSuspected`; no match proves nothing (§15.2), so clean hits say nothing.
 */
const PATTERNS: readonly RegExp[] = [
  // "ignore / disregard / forget / override (all) (the) previous|prior|above instructions|prompts|rules"
  /\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|every\s+)?(?:of\s+)?(?:the\s+|your\s+|my\s+|these\s+)?(?:previous|prior|above|earlier|preceding|foregoing|original|system)\s+(?:instructions?|prompts?|directions?|rules|guidelines|commands?|context)\b/i,
  /\b(?:reveal|print|show|repeat|leak|output)\s+(?:me\s+)?(?:your|the)\s+(?:system\s+|hidden\s+|initial\s+)?(?:prompt|instructions)\b/i,
  /\b(?:new|updated|real)\s+(?:system\s+)?instructions?\s*:/i,
  /\bdo\s+not\s+(?:tell|inform|alert)\s+the\s+user\b/i,
  /\byou\s+are\s+no\s+longer\s+(?:an?\s+)?(?:ai|assistant|language\s+model|bound)\b/i,
  // Chat-template control tokens have no business in a document body.
  /<\|(?:im_start|im_end|system|endoftext)\|>|\[\/?INST\]|<<\/?SYS>>/i,
];

/** True when `text` contains a known prompt-injection phrase. */
export function suspectInjection(text: string): boolean {
  return PATTERNS.some((p) => p.test(text));
}
