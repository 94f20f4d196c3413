// axe-core for the e2e specs (not a spec itself): checkA11y(page, view) runs the WCAG 2.0/2.1 A
// and AA and best-practice rules (and the label-in-name rule axe keeps experimental) on the page
// in the light theme, then colour contrast in the dark one, and throws listing every serious or
// critical violation: view, theme, rule, help, each element's selector and axe's summary.
// e2e/a11y.spec.ts checks every page and dialog with it; a spec that brings a view into a state
// the a11y spec does not reach (a fence in progress, a partitioned node) can call it too.
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';

const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];
const BLOCKING = new Set(['serious', 'critical']);
// WCAG 2.5.3 (label in name): axe marks it experimental, so it is off unless asked for
const EXTRA_RULES = { 'label-content-name-mismatch': { enabled: true } };

type Results = Awaited<ReturnType<AxeBuilder['analyze']>>;
type Violation = Results['violations'][number];

/** One line per failing element: what is wrong, where, and axe's own summary. */
function explain(view: string, vs: readonly Violation[]): string[] {
  const lines: string[] = [];
  for (const v of vs) {
    lines.push(`${view}: [${v.impact}] ${v.id}: ${v.help} (${v.nodes.length} element(s))`);
    for (const n of v.nodes.slice(0, 6)) {
      const summary = (n.failureSummary ?? '')
        .replace(/\s+/g, ' ')
        .replace(/^Fix any of the following: /, '');
      lines.push(`    ${n.target.join(' ')} — ${summary.slice(0, 240)}`);
    }
    if (v.nodes.length > 6) lines.push(`    … and ${v.nodes.length - 6} more`);
  }
  return lines;
}

/**
 * axe on the page: every rule in the light theme, then colour contrast again in the dark one
 * (the only rule a theme changes). Fails listing every serious or critical violation; prints
 * the lesser ones without failing.
 */
export async function checkA11y(page: Page, view: string) {
  const blocking: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const axe = new AxeBuilder({ page });
    if (scheme === 'light') axe.withTags(TAGS).options({ rules: EXTRA_RULES });
    else axe.withRules(['color-contrast']);
    const started = Date.now();
    const { violations } = await axe.analyze();
    axeMs += Date.now() - started;
    axeRuns++;
    const name = `${view} (${scheme})`;
    const serious = violations.filter((v) => BLOCKING.has(v.impact ?? ''));
    blocking.push(...explain(name, serious));
    const minor = explain(
      name,
      violations.filter((v) => !serious.includes(v)),
    );
    if (minor.length) console.log(`axe, not failing:\n${minor.join('\n')}`);
  }
  await page.emulateMedia({ colorScheme: null });
  if (blocking.length) throw new Error(`axe: serious or critical violations\n${blocking.join('\n')}`);
}

let axeMs = 0;
let axeRuns = 0;
/** How many axe runs this worker made and how long they took, for the spec's closing line. */
export function axeTime(): string {
  return `axe: ${axeRuns} runs, ${(axeMs / 1000).toFixed(1)} s in all`;
}
