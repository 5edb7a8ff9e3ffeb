import type { CitationSupport } from '../../core/app/verdicts';
import { shownVerdict, type ShownVerdict, type SupportJudgement } from '../../core/app/support';

/**
 * How a support verdict is put into words in the hover, apart from `vscode` so that the wording is
 * tested: the extension passes `vscode.l10n.t` as `t`.
 */
export type Localize = (message: string, ...args: (string | number)[]) => string;

export interface SupportWords {
  /** The codicon before the verdict: a check mark only for a verdict shown as sure. */
  readonly icon: string;
  readonly verdict: string;
  /** For a `supported` label: the model's probability, and how often its dev verdicts at that level were right. */
  readonly meaning?: string;
}

const ICONS: Readonly<Record<ShownVerdict, string>> = {
  supported: 'pass',
  'may-support': 'circle-large-outline',
  contradicted: 'warning',
  unsupported: 'info',
  unverifiable: 'question',
};

export function supportWords({ judgement, supportedTogether }: Pick<CitationSupport, 'judgement' | 'supportedTogether'>, t: Localize): SupportWords {
  const shown = shownVerdict(judgement);
  const verdicts: Readonly<Record<ShownVerdict, string>> = {
    supported: t('supported'),
    'may-support': t('may support the sentence; the model is not sure'),
    contradicted: t('contradicted'),
    unsupported: t('unsupported'),
    unverifiable: t('unverifiable'),
  };
  const verdict = supportedTogether ? t('supported together with the other citations of this sentence') : verdicts[shown];
  const meaning = judgement.label === 'supported' ? meaningOf(judgement, t) : undefined;
  return { icon: ICONS[shown], verdict, ...(meaning && { meaning }) };
}

/** What the probability behind a `supported` label means, from the model's calibration on the dev claims. */
function meaningOf({ entailment, onDev }: SupportJudgement, t: Localize): string | undefined {
  if (entailment === undefined) return undefined;
  const probability = t("The model's probability that the cited text supports the sentence: {0}.", entailment.toFixed(2));
  if (onDev === undefined || onDev.verdicts === 0) return `${probability} ${t('The model was not measured at this level on the dev claims, so the verdict is not shown as sure.')}`;
  const inTen = Math.round((10 * onDev.right) / onDev.verdicts);
  return `${probability} ${t('On the dev claims it was measured on (SciFact, Citation-Integrity, Check-COVID), {0} in 10 verdicts at this level were right ({1} of {2}); on claims of other kinds it is right less often.', inTen, onDev.right, onDev.verdicts)}`;
}
