/**
 * A model's reply with what is not meant as the answer taken out: the reasoning that local "thinking"
 * models (DeepSeek-R1, Qwen3, …) put in the content between <think> tags, and Markdown code fence
 * lines. Done with indexOf and line by line: a lazy `<think>[\s\S]*?</think>` pattern rescans the
 * rest of the reply for every unclosed tag.
 */
const THINKING = ['think', 'thinking', 'reasoning'];

export function cleanReply(reply: string): string {
  return withoutFences(withoutThinking(reply)).trim();
}

function withoutThinking(reply: string): string {
  // ASCII only: full lower-casing changes the length of some strings ('İ'), and with it every index.
  const lower = reply.replace(/[A-Z]/g, (c) => c.toLowerCase());
  let out = '';
  let at = 0;
  const next = new Map<string, number>();
  for (;;) {
    const open = nextOpening(lower, at, next);
    if (!open) return out + reply.slice(at);
    out += reply.slice(at, open.index);
    const close = lower.indexOf(`</${open.tag}>`, open.index);
    // A reply cut off while still thinking holds no answer.
    if (close < 0) return out;
    at = close + open.tag.length + 3;
  }
}

/** The first opening tag at or after `from`; `next` remembers where each tag was found, so no stretch is searched twice. */
function nextOpening(lower: string, from: number, next: Map<string, number>): { index: number; tag: string } | undefined {
  let best: { index: number; tag: string } | undefined;
  for (const tag of THINKING) {
    let index = next.get(tag) ?? -2;
    if (index !== -1 && index < from) index = lower.indexOf(`<${tag}>`, from);
    next.set(tag, index);
    if (index >= 0 && (!best || index < best.index)) best = { index, tag };
  }
  return best;
}

function withoutFences(text: string): string {
  return text
    .split('\n')
    .filter((line) => !isFence(line))
    .join('\n');
}

/** "```", "```json", with spaces around. */
function isFence(line: string): boolean {
  const trimmed = line.trim();
  return trimmed.startsWith('```') && /^[\w-]*$/.test(trimmed.slice(3));
}
