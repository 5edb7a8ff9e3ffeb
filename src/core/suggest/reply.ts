/**
 * A model's reply with what is not meant as the answer taken out: the reasoning that local "thinking"
 * models (DeepSeek-R1, Qwen3, …) put in the content between <think> tags, and Markdown code fence
 * lines; runs of blank lines made one. Done with moving searches and line by line: a lazy
 * `<think>[\s\S]*?</think>` pattern rescans the rest of the reply for every unclosed tag.
 */
export function cleanReply(reply: string): string {
  return withoutFences(withoutThinking(reply)).trim();
}

/** Opening tags, found from a moving `lastIndex`, so no stretch of the reply is searched twice. */
const OPENING = /<(think|thinking|reasoning)>/gi;

function withoutThinking(reply: string): string {
  let out = '';
  let at = 0;
  const opening = new RegExp(OPENING);
  for (;;) {
    opening.lastIndex = at;
    const open = opening.exec(reply);
    if (!open) return out + reply.slice(at);
    out += reply.slice(at, open.index);
    const closing = new RegExp(`</${open[1]}>`, 'gi');
    closing.lastIndex = open.index + open[0].length;
    const close = closing.exec(reply);
    // A reply cut off while still thinking holds no answer.
    if (!close) return out;
    at = close.index + close[0].length;
  }
}

/** Without code fence lines, and with each run of blank lines made one: a paragraph break, however long. */
function withoutFences(text: string): string {
  const kept: string[] = [];
  let blank = false;
  for (let start = 0; start <= text.length;) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline;
    const line = text.slice(start, end);
    start = end + 1;
    if (isFence(line)) continue;
    const empty = line.trim() === '';
    if (!(empty && blank)) kept.push(line);
    blank = empty;
  }
  return kept.join('\n');
}

/** "```", "```json", with spaces around. */
function isFence(line: string): boolean {
  const trimmed = line.trim();
  return trimmed.startsWith('```') && /^[\w-]*$/.test(trimmed.slice(3));
}
