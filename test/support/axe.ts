// axe-core (through @axe-core/playwright) on a page as it is now: the WCAG 2.1
// A and AA rules. Each violation as one line (rule, impact, the first few
// elements), so a failing test names what to fix.
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';

export const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

export async function axeViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page: page as never }).withTags(WCAG_TAGS).analyze();
  return results.violations.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
}
