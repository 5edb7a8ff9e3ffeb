import { shownVerdict, type SupportJudgement } from '../../core/app/support';
import type { VerdictView } from '../../webview/protocol/evidence';

/**
 * A model's judgement of a paper as the evidence page's badge shows it. Kept out of the protocol,
 * which the page bundles: `shownVerdict` would bring the support check's code into the page.
 */
export function verdictView(judgement: SupportJudgement): VerdictView {
  return { label: shownVerdict(judgement), entailment: judgement.entailment, ...(judgement.onDev && { onDev: judgement.onDev }) };
}
