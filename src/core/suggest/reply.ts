/**
 * A model's reply with what is not meant as the answer taken out: the reasoning that local "thinking"
 * models (DeepSeek-R1, Qwen3, …) put in the content between <think> tags, and Markdown code fences.
 */
export function cleanReply(reply: string): string {
  return reply
    .replace(/<(think|thinking|reasoning)>[\s\S]*?<\/\1>/gi, '')
    // A reply cut off while still thinking holds no answer.
    .replace(/<(think|thinking|reasoning)>[\s\S]*$/i, '')
    .replace(/^\s*```[\w-]*\s*$/gm, '')
    .trim();
}
